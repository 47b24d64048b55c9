package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@link MemoryLayout}s the way a C compiler lays structs out on x86_64 (SysV ABI): each member
 * at the next multiple of its alignment, the whole struct rounded up to its largest alignment.
 * Java's {@code structLayout} inserts no padding by itself and rejects misaligned members, so every
 * descriptor class of this package builds its layout here. The layout test compares the results
 * with gcc's.
 */
public final class CStruct
{
    private CStruct()
    {
    }

    /** {@code struct name { members... }}, padded like C. A {@link PaddingLayout} member is kept as given. */
    public static StructLayout struct(final String name, final MemoryLayout... members)
    {
        final List<MemoryLayout> out = new ArrayList<>();
        long offset = 0;
        long alignment = 1;
        for (final MemoryLayout member : members)
        {
            if (member instanceof PaddingLayout)
            {
                out.add(member);
                offset += member.byteSize();
                continue;
            }
            final long a = member.byteAlignment();
            final long pad = (a - offset % a) % a;
            if (pad > 0)
            {
                out.add(MemoryLayout.paddingLayout(pad));
                offset += pad;
            }
            out.add(member);
            offset += member.byteSize();
            alignment = Math.max(alignment, a);
        }
        final long tail = (alignment - offset % alignment) % alignment;
        if (tail > 0)
        {
            out.add(MemoryLayout.paddingLayout(tail));
        }
        return MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new)).withName(name);
    }

    /** {@code union name { members... }}, its size rounded up to its largest alignment like C. */
    static UnionLayout union(final String name, final MemoryLayout... members)
    {
        long size = 0;
        long alignment = 1;
        for (final MemoryLayout member : members)
        {
            size = Math.max(size, member.byteSize());
            alignment = Math.max(alignment, member.byteAlignment());
        }
        final long rounded = (size + alignment - 1) / alignment * alignment;
        final List<MemoryLayout> out = new ArrayList<>(List.of(members));
        if (rounded > size)
        {
            out.add(MemoryLayout.paddingLayout(rounded));
        }
        return MemoryLayout.unionLayout(out.toArray(MemoryLayout[]::new)).withName(name);
    }

    /** {@code char name[length]}. */
    static MemoryLayout chars(final String name, final long length)
    {
        return MemoryLayout.sequenceLayout(length, ValueLayout.JAVA_BYTE).withName(name);
    }

    /**
     * An opaque member we never look into ({@code pthread_mutex_t}, ...): {@code size} bytes aligned to
     * {@code alignment}, so the members after it land where C puts them.
     */
    static MemoryLayout opaque(final String name, final long size, final long alignment)
    {
        final ValueLayout unit = switch ((int)alignment)
        {
            case 1 -> ValueLayout.JAVA_BYTE;
            case 2 -> ValueLayout.JAVA_SHORT;
            case 4 -> ValueLayout.JAVA_INT;
            case 8 -> ValueLayout.JAVA_LONG;
            default -> throw new IllegalArgumentException("alignment " + alignment);
        };
        return MemoryLayout.sequenceLayout(size / alignment, unit).withName(name);
    }

    /** Byte offset of a member given by its C path, e.g. {@code "ah_attr.grh.sgid_index"}. */
    public static long offset(final GroupLayout layout, final String path)
    {
        return layout.byteOffset(elements(path));
    }

    /** The layout of a member given by its C path. */
    public static MemoryLayout member(final GroupLayout layout, final String path)
    {
        return layout.select(elements(path));
    }

    private static MemoryLayout.PathElement[] elements(final String path)
    {
        final String[] names = path.split("\\.");
        final MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[names.length];
        for (int i = 0; i < names.length; i++)
        {
            elements[i] = MemoryLayout.PathElement.groupElement(names[i]);
        }
        return elements;
    }
}
