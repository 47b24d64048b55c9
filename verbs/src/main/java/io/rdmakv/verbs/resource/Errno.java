package io.rdmakv.verbs.resource;

/** The Linux errno values the verbs layer returns or reports, and their names. */
public final class Errno
{
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int EOPNOTSUPP = 95;
    public static final int ECONNREFUSED = 111;
    public static final int ETIMEDOUT = 110;

    private Errno()
    {
    }

    public static String name(final int errno)
    {
        return switch (errno)
        {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EIO -> "EIO";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case ENOSYS -> "ENOSYS";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case ECONNREFUSED -> "ECONNREFUSED";
            case ETIMEDOUT -> "ETIMEDOUT";
            default -> "errno " + errno;
        };
    }
}
