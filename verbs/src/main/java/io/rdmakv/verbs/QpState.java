package io.rdmakv.verbs;

/** Queue pair states, with the numeric values of {@code enum ibv_qp_state}. */
public enum QpState
{
    RESET(0),
    INIT(1),
    RTR(2),
    RTS(3),
    SQD(4),
    SQE(5),
    ERR(6);

    private final int code;

    QpState(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    public static QpState of(final int code)
    {
        for (final QpState s : values())
        {
            if (s.code == code)
            {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown ibv_qp_state " + code);
    }
}
