package io.rdmakv.systemtests.ops;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Just enough of PromQL (and of Grafana's {@code label_values(...)} variable queries) to find which series an
 * expression reads: strings, label matchers ({@code {...}}), range and subquery brackets ({@code [...]}),
 * numbers and durations and Grafana variables ({@code $x}, {@code ${x}}) are skipped; what remains is
 * identifiers and parentheses. An identifier with a colon is a recording rule (level:metric:operations); one
 * that starts with {@code rdmakv_} is an exported series name as scraped ({@code x_total}, {@code x_bucket},
 * ...); functions, keywords and label names are neither.
 */
final class PromQl
{
    /** A series read by an expression, and the function directly around it when it is rate-like. */
    record Reference(String name, String function)
    {
    }

    private static final Set<String> RATE_FUNCTIONS = Set.of("rate", "irate", "increase");

    private final List<String> tokens;

    private PromQl(final List<String> tokens)
    {
        this.tokens = tokens;
    }

    static PromQl parse(final String expr)
    {
        final List<String> tokens = new ArrayList<>();
        int i = 0;
        final int n = expr.length();
        while (i < n)
        {
            final char c = expr.charAt(i);
            if (c == '"' || c == '\'' || c == '`')
            {
                i = skipString(expr, i);
            }
            else if (c == '{')
            {
                i = skipPast(expr, i, '}');
            }
            else if (c == '[')
            {
                i = skipPast(expr, i, ']');
            }
            else if (c == '$')
            {
                i++;
                if (i < n && expr.charAt(i) == '{')
                {
                    i = skipPast(expr, i, '}');
                }
                else
                {
                    while (i < n && isIdentifierPart(expr.charAt(i)) && expr.charAt(i) != ':')
                    {
                        i++;
                    }
                }
            }
            else if (Character.isDigit(c) || c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1)))
            {
                // a number, a duration (5m, 1h30m) or a float with an exponent
                while (i < n && (Character.isLetterOrDigit(expr.charAt(i)) || expr.charAt(i) == '.'))
                {
                    i++;
                }
            }
            else if (isIdentifierStart(c))
            {
                final int start = i;
                while (i < n && isIdentifierPart(expr.charAt(i)))
                {
                    i++;
                }
                tokens.add(expr.substring(start, i));
            }
            else
            {
                if (c == '(' || c == ')')
                {
                    tokens.add(String.valueOf(c));
                }
                i++;
            }
        }
        return new PromQl(tokens);
    }

    /** Every {@code rdmakv_*} series the expression reads (no recording rules), with its rate-like function. */
    List<Reference> metrics()
    {
        final List<Reference> result = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++)
        {
            final String t = tokens.get(i);
            if (t.startsWith("rdmakv_") && t.indexOf(':') < 0)
            {
                final String function = i >= 2 && tokens.get(i - 1).equals("(") &&
                    RATE_FUNCTIONS.contains(tokens.get(i - 2)) ? tokens.get(i - 2) : null;
                result.add(new Reference(t, function));
            }
        }
        return result;
    }

    /** Every recording-rule name (an identifier with a colon) the expression reads. */
    Set<String> recordingRules()
    {
        final Set<String> result = new LinkedHashSet<>();
        for (final String t : tokens)
        {
            if (t.indexOf(':') >= 0)
            {
                result.add(t);
            }
        }
        return result;
    }

    private static boolean isIdentifierStart(final char c)
    {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
    }

    private static boolean isIdentifierPart(final char c)
    {
        return isIdentifierStart(c) || c >= '0' && c <= '9';
    }

    private static int skipString(final String s, final int open)
    {
        final char quote = s.charAt(open);
        int i = open + 1;
        while (i < s.length() && s.charAt(i) != quote)
        {
            i += s.charAt(i) == '\\' && quote != '`' ? 2 : 1;
        }
        return i + 1;
    }

    /** Skips to just after the {@code close} that ends the bracket at {@code open}, stepping over strings. */
    private static int skipPast(final String s, final int open, final char close)
    {
        int i = open + 1;
        while (i < s.length() && s.charAt(i) != close)
        {
            final char c = s.charAt(i);
            i = c == '"' || c == '\'' || c == '`' ? skipString(s, i) : i + 1;
        }
        return i + 1;
    }
}
