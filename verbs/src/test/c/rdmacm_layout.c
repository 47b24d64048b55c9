/*
 * Prints, as name=value lines, the size, alignment and member offsets of every struct the Java
 * rdma_cm bindings of rdmakv's ibverbs provider touch, and the value of every constant they use, as the
 * installed <rdma/rdma_cma.h> (and the socket headers it includes) define them. RdmacmLayoutTest
 * compiles this with gcc, runs it and compares each line with the Java descriptors (the classes of
 * io.rdmakv.verbs.ibverbs.layout whose HEADER is "rdma/rdma_cma.h") and RdmaCmConstants, in the
 * format of verbs_layout.c. Anonymous unions: rdma_addr's socket-address unions are printed by their
 * largest member, src_storage / dst_storage, the one the Java layout names.
 *
 * Only sizeof/offsetof/enum values are used: nothing is linked, librdmacm.so is not needed.
 */
#include <stddef.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>

#define TYPE(KIND, T) \
    printf("sizeof(%s)=%zu\nalignof(%s)=%zu\n", #T, sizeof(KIND T), #T, _Alignof(KIND T))
#define FIELD(KIND, T, M) \
    printf("offsetof(%s.%s)=%zu\nsizeof(%s.%s)=%zu\n", #T, #M, offsetof(KIND T, M), #T, #M, \
           sizeof(((KIND T *)0)->M))
#define STRUCT(T) TYPE(struct, T)
#define S(T, M) FIELD(struct, T, M)
#define CONST(GROUP, NAME) printf("const(%s.%s)=%lld\n", #GROUP, #NAME, (long long)(NAME))

static void structs(void)
{
    STRUCT(sockaddr_in);
    S(sockaddr_in, sin_family);
    S(sockaddr_in, sin_port);
    S(sockaddr_in, sin_addr);
    S(sockaddr_in, sin_zero);

    STRUCT(sockaddr_in6);
    S(sockaddr_in6, sin6_family);
    S(sockaddr_in6, sin6_port);
    S(sockaddr_in6, sin6_flowinfo);
    S(sockaddr_in6, sin6_addr);
    S(sockaddr_in6, sin6_scope_id);

    STRUCT(sockaddr_storage);
    S(sockaddr_storage, ss_family);
    S(sockaddr_storage, __ss_padding);
    S(sockaddr_storage, __ss_align);

    STRUCT(rdma_ib_addr);
    S(rdma_ib_addr, sgid);
    S(rdma_ib_addr, dgid);
    S(rdma_ib_addr, pkey);

    STRUCT(rdma_addr);
    S(rdma_addr, src_storage);
    S(rdma_addr, dst_storage);
    S(rdma_addr, addr);
    S(rdma_addr, addr.ibaddr);

    STRUCT(rdma_route);
    S(rdma_route, addr);
    S(rdma_route, path_rec);
    S(rdma_route, num_paths);

    STRUCT(rdma_event_channel);
    S(rdma_event_channel, fd);

    STRUCT(rdma_cm_id);
    S(rdma_cm_id, verbs);
    S(rdma_cm_id, channel);
    S(rdma_cm_id, context);
    S(rdma_cm_id, qp);
    S(rdma_cm_id, route);
    S(rdma_cm_id, route.addr.src_storage);
    S(rdma_cm_id, route.addr.dst_storage);
    S(rdma_cm_id, ps);
    S(rdma_cm_id, port_num);
    S(rdma_cm_id, event);
    S(rdma_cm_id, send_cq_channel);
    S(rdma_cm_id, send_cq);
    S(rdma_cm_id, recv_cq_channel);
    S(rdma_cm_id, recv_cq);
    S(rdma_cm_id, srq);
    S(rdma_cm_id, pd);
    S(rdma_cm_id, qp_type);

    STRUCT(rdma_conn_param);
    S(rdma_conn_param, private_data);
    S(rdma_conn_param, private_data_len);
    S(rdma_conn_param, responder_resources);
    S(rdma_conn_param, initiator_depth);
    S(rdma_conn_param, flow_control);
    S(rdma_conn_param, retry_count);
    S(rdma_conn_param, rnr_retry_count);
    S(rdma_conn_param, srq);
    S(rdma_conn_param, qp_num);

    STRUCT(rdma_ud_param);
    S(rdma_ud_param, private_data);
    S(rdma_ud_param, private_data_len);
    S(rdma_ud_param, ah_attr);
    S(rdma_ud_param, qp_num);
    S(rdma_ud_param, qkey);

    STRUCT(rdma_cm_event);
    S(rdma_cm_event, id);
    S(rdma_cm_event, listen_id);
    S(rdma_cm_event, event);
    S(rdma_cm_event, status);
    S(rdma_cm_event, param);
    S(rdma_cm_event, param.conn);
    S(rdma_cm_event, param.ud);
}

static void constants(void)
{
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ADDR_RESOLVED);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ADDR_ERROR);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ROUTE_RESOLVED);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ROUTE_ERROR);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_CONNECT_REQUEST);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_CONNECT_RESPONSE);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_CONNECT_ERROR);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_UNREACHABLE);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_REJECTED);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ESTABLISHED);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_DISCONNECTED);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_DEVICE_REMOVAL);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_MULTICAST_JOIN);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_MULTICAST_ERROR);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_ADDR_CHANGE);
    CONST(rdma_cm_event_type, RDMA_CM_EVENT_TIMEWAIT_EXIT);

    CONST(rdma_port_space, RDMA_PS_TCP);

    CONST(rdma_conn_param, RDMA_MAX_RESP_RES);
    CONST(rdma_conn_param, RDMA_MAX_INIT_DEPTH);

    CONST(socket, AF_INET);
    CONST(socket, AF_INET6);
}

int main(void)
{
    structs();
    constants();
    return 0;
}
