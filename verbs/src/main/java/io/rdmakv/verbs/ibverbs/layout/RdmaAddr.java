package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

/**
 * Layout of {@code struct rdma_addr}: 296 bytes, align 8. C has two anonymous unions of socket
 * addresses ({@code src_addr}, {@code src_sin}, {@code src_sin6}, {@code src_storage}; the same for
 * {@code dst_}), whose largest member is the {@code sockaddr_storage}: this layout names that one, and a
 * {@link SockaddrIn} or {@link SockaddrIn6} is read at the same offset.
 *
 * <pre>
 *   0 src_storage (128)   128 dst_storage (128)   256 addr.ibaddr (struct rdma_ib_addr, 40)
 * </pre>
 */
public final class RdmaAddr
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_addr",
        SockaddrStorage.LAYOUT.withName("src_storage"),
        SockaddrStorage.LAYOUT.withName("dst_storage"),
        CStruct.union("addr", RdmaIbAddr.LAYOUT.withName("ibaddr")));

    private RdmaAddr()
    {
    }
}
