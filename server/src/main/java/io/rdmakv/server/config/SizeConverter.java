package io.rdmakv.server.config;

import picocli.CommandLine;

/** Parses sizes such as {@code 4096}, {@code 512k}, {@code 64m}, {@code 4g} (binary units). */
public final class SizeConverter implements CommandLine.ITypeConverter<Long>
{
    @Override
    public Long convert(final String value)
    {
        return parse(value);
    }

    public static long parse(final String value)
    {
        final String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        if (v.isEmpty())
        {
            throw new CommandLine.TypeConversionException("empty size");
        }
        final char unit = v.charAt(v.length() - 1);
        final int shift = switch (unit)
        {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        final String digits = shift == 0 ? v : v.substring(0, v.length() - 1);
        try
        {
            final long n = Long.parseLong(digits);
            if (n < 0 || (shift > 0 && n > (Long.MAX_VALUE >> shift)))
            {
                throw new CommandLine.TypeConversionException("size out of range: '" + value + "'");
            }
            return n << shift;
        }
        catch (final NumberFormatException e)
        {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a size (e.g. 4096, 512k, 64m, 4g)");
        }
    }
}
