/*
 * Prints, as name=value lines, the size, alignment and member offsets of every struct the Java
 * bindings of rdmakv's ibverbs provider touch, and the value of every constant they use, as the
 * installed <infiniband/verbs.h> (and libc) define them. IbverbsLayoutTest compiles this with gcc,
 * runs it and compares each line with the Java descriptors.
 *
 *   sizeof(ibv_qp_attr)=144              alignof(ibv_qp_attr)=8
 *   offsetof(ibv_qp_attr.ah_attr)=56     sizeof(ibv_qp_attr.ah_attr)=32
 *   const(ibv_qp_state.IBV_QPS_RTS)=3
 *
 * Only sizeof/offsetof/enum values are used: nothing is linked, libibverbs.so is not needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <infiniband/verbs.h>

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
    /* union ibv_gid */
    TYPE(union, ibv_gid);
    FIELD(union, ibv_gid, raw);
    FIELD(union, ibv_gid, global);
    FIELD(union, ibv_gid, global.subnet_prefix);
    FIELD(union, ibv_gid, global.interface_id);

    STRUCT(ibv_gid_entry);
    S(ibv_gid_entry, gid);
    S(ibv_gid_entry, gid_index);
    S(ibv_gid_entry, port_num);
    S(ibv_gid_entry, gid_type);
    S(ibv_gid_entry, ndev_ifindex);

    STRUCT(ibv_device_attr);
    S(ibv_device_attr, fw_ver);
    S(ibv_device_attr, node_guid);
    S(ibv_device_attr, sys_image_guid);
    S(ibv_device_attr, max_mr_size);
    S(ibv_device_attr, page_size_cap);
    S(ibv_device_attr, vendor_id);
    S(ibv_device_attr, vendor_part_id);
    S(ibv_device_attr, hw_ver);
    S(ibv_device_attr, max_qp);
    S(ibv_device_attr, max_qp_wr);
    S(ibv_device_attr, device_cap_flags);
    S(ibv_device_attr, max_sge);
    S(ibv_device_attr, max_sge_rd);
    S(ibv_device_attr, max_cq);
    S(ibv_device_attr, max_cqe);
    S(ibv_device_attr, max_mr);
    S(ibv_device_attr, max_pd);
    S(ibv_device_attr, max_qp_rd_atom);
    S(ibv_device_attr, max_ee_rd_atom);
    S(ibv_device_attr, max_res_rd_atom);
    S(ibv_device_attr, max_qp_init_rd_atom);
    S(ibv_device_attr, max_ee_init_rd_atom);
    S(ibv_device_attr, atomic_cap);
    S(ibv_device_attr, max_ee);
    S(ibv_device_attr, max_rdd);
    S(ibv_device_attr, max_mw);
    S(ibv_device_attr, max_raw_ipv6_qp);
    S(ibv_device_attr, max_raw_ethy_qp);
    S(ibv_device_attr, max_mcast_grp);
    S(ibv_device_attr, max_mcast_qp_attach);
    S(ibv_device_attr, max_total_mcast_qp_attach);
    S(ibv_device_attr, max_ah);
    S(ibv_device_attr, max_fmr);
    S(ibv_device_attr, max_map_per_fmr);
    S(ibv_device_attr, max_srq);
    S(ibv_device_attr, max_srq_wr);
    S(ibv_device_attr, max_srq_sge);
    S(ibv_device_attr, max_pkeys);
    S(ibv_device_attr, local_ca_ack_delay);
    S(ibv_device_attr, phys_port_cnt);

    STRUCT(ibv_port_attr);
    S(ibv_port_attr, state);
    S(ibv_port_attr, max_mtu);
    S(ibv_port_attr, active_mtu);
    S(ibv_port_attr, gid_tbl_len);
    S(ibv_port_attr, port_cap_flags);
    S(ibv_port_attr, max_msg_sz);
    S(ibv_port_attr, bad_pkey_cntr);
    S(ibv_port_attr, qkey_viol_cntr);
    S(ibv_port_attr, pkey_tbl_len);
    S(ibv_port_attr, lid);
    S(ibv_port_attr, sm_lid);
    S(ibv_port_attr, lmc);
    S(ibv_port_attr, max_vl_num);
    S(ibv_port_attr, sm_sl);
    S(ibv_port_attr, subnet_timeout);
    S(ibv_port_attr, init_type_reply);
    S(ibv_port_attr, active_width);
    S(ibv_port_attr, active_speed);
    S(ibv_port_attr, phys_state);
    S(ibv_port_attr, link_layer);
    S(ibv_port_attr, flags);
    S(ibv_port_attr, port_cap_flags2);

    STRUCT(ibv_qp_cap);
    S(ibv_qp_cap, max_send_wr);
    S(ibv_qp_cap, max_recv_wr);
    S(ibv_qp_cap, max_send_sge);
    S(ibv_qp_cap, max_recv_sge);
    S(ibv_qp_cap, max_inline_data);

    STRUCT(ibv_qp_init_attr);
    S(ibv_qp_init_attr, qp_context);
    S(ibv_qp_init_attr, send_cq);
    S(ibv_qp_init_attr, recv_cq);
    S(ibv_qp_init_attr, srq);
    S(ibv_qp_init_attr, cap);
    S(ibv_qp_init_attr, cap.max_send_wr);
    S(ibv_qp_init_attr, cap.max_recv_wr);
    S(ibv_qp_init_attr, cap.max_send_sge);
    S(ibv_qp_init_attr, cap.max_recv_sge);
    S(ibv_qp_init_attr, cap.max_inline_data);
    S(ibv_qp_init_attr, qp_type);
    S(ibv_qp_init_attr, sq_sig_all);

    STRUCT(ibv_global_route);
    S(ibv_global_route, dgid);
    S(ibv_global_route, flow_label);
    S(ibv_global_route, sgid_index);
    S(ibv_global_route, hop_limit);
    S(ibv_global_route, traffic_class);

    STRUCT(ibv_ah_attr);
    S(ibv_ah_attr, grh);
    S(ibv_ah_attr, dlid);
    S(ibv_ah_attr, sl);
    S(ibv_ah_attr, src_path_bits);
    S(ibv_ah_attr, static_rate);
    S(ibv_ah_attr, is_global);
    S(ibv_ah_attr, port_num);

    STRUCT(ibv_qp_attr);
    S(ibv_qp_attr, qp_state);
    S(ibv_qp_attr, cur_qp_state);
    S(ibv_qp_attr, path_mtu);
    S(ibv_qp_attr, path_mig_state);
    S(ibv_qp_attr, qkey);
    S(ibv_qp_attr, rq_psn);
    S(ibv_qp_attr, sq_psn);
    S(ibv_qp_attr, dest_qp_num);
    S(ibv_qp_attr, qp_access_flags);
    S(ibv_qp_attr, cap);
    S(ibv_qp_attr, ah_attr);
    S(ibv_qp_attr, ah_attr.grh.dgid);
    S(ibv_qp_attr, ah_attr.grh.sgid_index);
    S(ibv_qp_attr, ah_attr.grh.hop_limit);
    S(ibv_qp_attr, ah_attr.dlid);
    S(ibv_qp_attr, ah_attr.sl);
    S(ibv_qp_attr, ah_attr.is_global);
    S(ibv_qp_attr, ah_attr.port_num);
    S(ibv_qp_attr, alt_ah_attr);
    S(ibv_qp_attr, pkey_index);
    S(ibv_qp_attr, alt_pkey_index);
    S(ibv_qp_attr, en_sqd_async_notify);
    S(ibv_qp_attr, sq_draining);
    S(ibv_qp_attr, max_rd_atomic);
    S(ibv_qp_attr, max_dest_rd_atomic);
    S(ibv_qp_attr, min_rnr_timer);
    S(ibv_qp_attr, port_num);
    S(ibv_qp_attr, timeout);
    S(ibv_qp_attr, retry_cnt);
    S(ibv_qp_attr, rnr_retry);
    S(ibv_qp_attr, alt_port_num);
    S(ibv_qp_attr, alt_timeout);
    S(ibv_qp_attr, rate_limit);

    STRUCT(ibv_context_ops);
    S(ibv_context_ops, _compat_query_device);
    S(ibv_context_ops, _compat_query_port);
    S(ibv_context_ops, _compat_alloc_pd);
    S(ibv_context_ops, _compat_dealloc_pd);
    S(ibv_context_ops, _compat_reg_mr);
    S(ibv_context_ops, _compat_rereg_mr);
    S(ibv_context_ops, _compat_dereg_mr);
    S(ibv_context_ops, alloc_mw);
    S(ibv_context_ops, bind_mw);
    S(ibv_context_ops, dealloc_mw);
    S(ibv_context_ops, _compat_create_cq);
    S(ibv_context_ops, poll_cq);
    S(ibv_context_ops, req_notify_cq);
    S(ibv_context_ops, _compat_cq_event);
    S(ibv_context_ops, _compat_resize_cq);
    S(ibv_context_ops, _compat_destroy_cq);
    S(ibv_context_ops, _compat_create_srq);
    S(ibv_context_ops, _compat_modify_srq);
    S(ibv_context_ops, _compat_query_srq);
    S(ibv_context_ops, _compat_destroy_srq);
    S(ibv_context_ops, post_srq_recv);
    S(ibv_context_ops, _compat_create_qp);
    S(ibv_context_ops, _compat_query_qp);
    S(ibv_context_ops, _compat_modify_qp);
    S(ibv_context_ops, _compat_destroy_qp);
    S(ibv_context_ops, post_send);
    S(ibv_context_ops, post_recv);
    S(ibv_context_ops, _compat_create_ah);
    S(ibv_context_ops, _compat_destroy_ah);
    S(ibv_context_ops, _compat_attach_mcast);
    S(ibv_context_ops, _compat_detach_mcast);
    S(ibv_context_ops, _compat_async_event);

    STRUCT(ibv_device);
    S(ibv_device, _ops);
    S(ibv_device, _ops._dummy1);
    S(ibv_device, _ops._dummy2);
    S(ibv_device, node_type);
    S(ibv_device, transport_type);
    S(ibv_device, name);
    S(ibv_device, dev_name);
    S(ibv_device, dev_path);
    S(ibv_device, ibdev_path);

    STRUCT(ibv_context);
    S(ibv_context, device);
    S(ibv_context, ops);
    S(ibv_context, ops.poll_cq);
    S(ibv_context, ops.req_notify_cq);
    S(ibv_context, ops.post_send);
    S(ibv_context, ops.post_recv);
    S(ibv_context, ops.alloc_mw);
    S(ibv_context, ops.dealloc_mw);
    S(ibv_context, cmd_fd);
    S(ibv_context, async_fd);
    S(ibv_context, num_comp_vectors);
    S(ibv_context, mutex);
    S(ibv_context, abi_compat);

    STRUCT(ibv_pd);
    S(ibv_pd, context);
    S(ibv_pd, handle);

    STRUCT(ibv_mw);
    S(ibv_mw, context);
    S(ibv_mw, pd);
    S(ibv_mw, rkey);
    S(ibv_mw, handle);
    S(ibv_mw, type);

    STRUCT(ibv_mr);
    S(ibv_mr, context);
    S(ibv_mr, pd);
    S(ibv_mr, addr);
    S(ibv_mr, length);
    S(ibv_mr, handle);
    S(ibv_mr, lkey);
    S(ibv_mr, rkey);

    STRUCT(ibv_cq);
    S(ibv_cq, context);
    S(ibv_cq, channel);
    S(ibv_cq, cq_context);
    S(ibv_cq, handle);
    S(ibv_cq, cqe);
    S(ibv_cq, mutex);
    S(ibv_cq, cond);
    S(ibv_cq, comp_events_completed);
    S(ibv_cq, async_events_completed);

    STRUCT(ibv_qp);
    S(ibv_qp, context);
    S(ibv_qp, qp_context);
    S(ibv_qp, pd);
    S(ibv_qp, send_cq);
    S(ibv_qp, recv_cq);
    S(ibv_qp, srq);
    S(ibv_qp, handle);
    S(ibv_qp, qp_num);
    S(ibv_qp, state);
    S(ibv_qp, qp_type);
    S(ibv_qp, mutex);
    S(ibv_qp, cond);
    S(ibv_qp, events_completed);

    STRUCT(ibv_comp_channel);
    S(ibv_comp_channel, context);
    S(ibv_comp_channel, fd);
    S(ibv_comp_channel, refcnt);

    STRUCT(ibv_async_event);
    S(ibv_async_event, element);
    S(ibv_async_event, element.cq);
    S(ibv_async_event, element.qp);
    S(ibv_async_event, element.srq);
    S(ibv_async_event, element.wq);
    S(ibv_async_event, element.port_num);
    S(ibv_async_event, event_type);

    /* shared with the tcp provider: io.rdmakv.verbs.abi */
    STRUCT(ibv_sge);
    S(ibv_sge, addr);
    S(ibv_sge, length);
    S(ibv_sge, lkey);

    STRUCT(ibv_send_wr);
    S(ibv_send_wr, wr_id);
    S(ibv_send_wr, next);
    S(ibv_send_wr, sg_list);
    S(ibv_send_wr, num_sge);
    S(ibv_send_wr, opcode);
    S(ibv_send_wr, send_flags);
    S(ibv_send_wr, imm_data);
    S(ibv_send_wr, wr.rdma.remote_addr);
    S(ibv_send_wr, wr.rdma.rkey);
    S(ibv_send_wr, wr.atomic.remote_addr);
    S(ibv_send_wr, wr.atomic.compare_add);
    S(ibv_send_wr, wr.atomic.swap);
    S(ibv_send_wr, wr.atomic.rkey);
    S(ibv_send_wr, invalidate_rkey);
    S(ibv_send_wr, bind_mw.mw);
    S(ibv_send_wr, bind_mw.rkey);
    S(ibv_send_wr, bind_mw.bind_info.mr);
    S(ibv_send_wr, bind_mw.bind_info.addr);
    S(ibv_send_wr, bind_mw.bind_info.length);
    S(ibv_send_wr, bind_mw.bind_info.mw_access_flags);

    STRUCT(ibv_recv_wr);
    S(ibv_recv_wr, wr_id);
    S(ibv_recv_wr, next);
    S(ibv_recv_wr, sg_list);
    S(ibv_recv_wr, num_sge);

    STRUCT(ibv_wc);
    S(ibv_wc, wr_id);
    S(ibv_wc, status);
    S(ibv_wc, opcode);
    S(ibv_wc, vendor_err);
    S(ibv_wc, byte_len);
    S(ibv_wc, imm_data);
    S(ibv_wc, qp_num);
    S(ibv_wc, src_qp);
    S(ibv_wc, wc_flags);
    S(ibv_wc, pkey_index);
    S(ibv_wc, slid);
    S(ibv_wc, sl);
    S(ibv_wc, dlid_path_bits);

    /* libc */
    STRUCT(rlimit);
    S(rlimit, rlim_cur);
    S(rlimit, rlim_max);

    STRUCT(pollfd);
    S(pollfd, fd);
    S(pollfd, events);
    S(pollfd, revents);

    STRUCT(timespec);
    S(timespec, tv_sec);
    S(timespec, tv_nsec);
}

static void constants(void)
{
    CONST(ibv_wr_opcode, IBV_WR_RDMA_WRITE);
    CONST(ibv_wr_opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
    CONST(ibv_wr_opcode, IBV_WR_SEND);
    CONST(ibv_wr_opcode, IBV_WR_SEND_WITH_IMM);
    CONST(ibv_wr_opcode, IBV_WR_RDMA_READ);
    CONST(ibv_wr_opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
    CONST(ibv_wr_opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
    CONST(ibv_wr_opcode, IBV_WR_LOCAL_INV);
    CONST(ibv_wr_opcode, IBV_WR_BIND_MW);

    CONST(ibv_send_flags, IBV_SEND_FENCE);
    CONST(ibv_send_flags, IBV_SEND_SIGNALED);
    CONST(ibv_send_flags, IBV_SEND_SOLICITED);
    CONST(ibv_send_flags, IBV_SEND_INLINE);

    CONST(ibv_access_flags, IBV_ACCESS_LOCAL_WRITE);
    CONST(ibv_access_flags, IBV_ACCESS_REMOTE_WRITE);
    CONST(ibv_access_flags, IBV_ACCESS_REMOTE_READ);
    CONST(ibv_access_flags, IBV_ACCESS_REMOTE_ATOMIC);
    CONST(ibv_access_flags, IBV_ACCESS_MW_BIND);

    CONST(ibv_wc_opcode, IBV_WC_SEND);
    CONST(ibv_wc_opcode, IBV_WC_RDMA_WRITE);
    CONST(ibv_wc_opcode, IBV_WC_RDMA_READ);
    CONST(ibv_wc_opcode, IBV_WC_COMP_SWAP);
    CONST(ibv_wc_opcode, IBV_WC_FETCH_ADD);
    CONST(ibv_wc_opcode, IBV_WC_BIND_MW);
    CONST(ibv_wc_opcode, IBV_WC_LOCAL_INV);
    CONST(ibv_wc_opcode, IBV_WC_RECV);
    CONST(ibv_wc_opcode, IBV_WC_RECV_RDMA_WITH_IMM);

    CONST(ibv_wc_status, IBV_WC_SUCCESS);
    CONST(ibv_wc_status, IBV_WC_LOC_LEN_ERR);
    CONST(ibv_wc_status, IBV_WC_LOC_QP_OP_ERR);
    CONST(ibv_wc_status, IBV_WC_LOC_EEC_OP_ERR);
    CONST(ibv_wc_status, IBV_WC_LOC_PROT_ERR);
    CONST(ibv_wc_status, IBV_WC_WR_FLUSH_ERR);
    CONST(ibv_wc_status, IBV_WC_MW_BIND_ERR);
    CONST(ibv_wc_status, IBV_WC_BAD_RESP_ERR);
    CONST(ibv_wc_status, IBV_WC_LOC_ACCESS_ERR);
    CONST(ibv_wc_status, IBV_WC_REM_INV_REQ_ERR);
    CONST(ibv_wc_status, IBV_WC_REM_ACCESS_ERR);
    CONST(ibv_wc_status, IBV_WC_REM_OP_ERR);
    CONST(ibv_wc_status, IBV_WC_RETRY_EXC_ERR);
    CONST(ibv_wc_status, IBV_WC_RNR_RETRY_EXC_ERR);
    CONST(ibv_wc_status, IBV_WC_LOC_RDD_VIOL_ERR);
    CONST(ibv_wc_status, IBV_WC_REM_INV_RD_REQ_ERR);
    CONST(ibv_wc_status, IBV_WC_REM_ABORT_ERR);
    CONST(ibv_wc_status, IBV_WC_INV_EECN_ERR);
    CONST(ibv_wc_status, IBV_WC_INV_EEC_STATE_ERR);
    CONST(ibv_wc_status, IBV_WC_FATAL_ERR);
    CONST(ibv_wc_status, IBV_WC_RESP_TIMEOUT_ERR);
    CONST(ibv_wc_status, IBV_WC_GENERAL_ERR);
    CONST(ibv_wc_status, IBV_WC_TM_ERR);
    CONST(ibv_wc_status, IBV_WC_TM_RNDV_INCOMPLETE);

    CONST(ibv_qp_state, IBV_QPS_RESET);
    CONST(ibv_qp_state, IBV_QPS_INIT);
    CONST(ibv_qp_state, IBV_QPS_RTR);
    CONST(ibv_qp_state, IBV_QPS_RTS);
    CONST(ibv_qp_state, IBV_QPS_SQD);
    CONST(ibv_qp_state, IBV_QPS_SQE);
    CONST(ibv_qp_state, IBV_QPS_ERR);

    CONST(ibv_qp_attr_mask, IBV_QP_STATE);
    CONST(ibv_qp_attr_mask, IBV_QP_CUR_STATE);
    CONST(ibv_qp_attr_mask, IBV_QP_ACCESS_FLAGS);
    CONST(ibv_qp_attr_mask, IBV_QP_PKEY_INDEX);
    CONST(ibv_qp_attr_mask, IBV_QP_PORT);
    CONST(ibv_qp_attr_mask, IBV_QP_AV);
    CONST(ibv_qp_attr_mask, IBV_QP_PATH_MTU);
    CONST(ibv_qp_attr_mask, IBV_QP_TIMEOUT);
    CONST(ibv_qp_attr_mask, IBV_QP_RETRY_CNT);
    CONST(ibv_qp_attr_mask, IBV_QP_RNR_RETRY);
    CONST(ibv_qp_attr_mask, IBV_QP_RQ_PSN);
    CONST(ibv_qp_attr_mask, IBV_QP_MAX_QP_RD_ATOMIC);
    CONST(ibv_qp_attr_mask, IBV_QP_MIN_RNR_TIMER);
    CONST(ibv_qp_attr_mask, IBV_QP_SQ_PSN);
    CONST(ibv_qp_attr_mask, IBV_QP_MAX_DEST_RD_ATOMIC);
    CONST(ibv_qp_attr_mask, IBV_QP_CAP);
    CONST(ibv_qp_attr_mask, IBV_QP_DEST_QPN);

    CONST(ibv_qp_type, IBV_QPT_RC);

    CONST(ibv_mtu, IBV_MTU_256);
    CONST(ibv_mtu, IBV_MTU_512);
    CONST(ibv_mtu, IBV_MTU_1024);
    CONST(ibv_mtu, IBV_MTU_2048);
    CONST(ibv_mtu, IBV_MTU_4096);

    CONST(ibv_port_state, IBV_PORT_NOP);
    CONST(ibv_port_state, IBV_PORT_DOWN);
    CONST(ibv_port_state, IBV_PORT_INIT);
    CONST(ibv_port_state, IBV_PORT_ARMED);
    CONST(ibv_port_state, IBV_PORT_ACTIVE);
    CONST(ibv_port_state, IBV_PORT_ACTIVE_DEFER);

    CONST(link_layer, IBV_LINK_LAYER_UNSPECIFIED);
    CONST(link_layer, IBV_LINK_LAYER_INFINIBAND);
    CONST(link_layer, IBV_LINK_LAYER_ETHERNET);

    CONST(ibv_gid_type, IBV_GID_TYPE_IB);
    CONST(ibv_gid_type, IBV_GID_TYPE_ROCE_V1);
    CONST(ibv_gid_type, IBV_GID_TYPE_ROCE_V2);
    CONST(ibv_transport_type, IBV_TRANSPORT_IB);
    CONST(ibv_transport_type, IBV_TRANSPORT_IWARP);

    CONST(ibv_atomic_cap, IBV_ATOMIC_NONE);
    CONST(ibv_atomic_cap, IBV_ATOMIC_HCA);
    CONST(ibv_atomic_cap, IBV_ATOMIC_GLOB);

    CONST(ibv_mw_type, IBV_MW_TYPE_1);
    CONST(ibv_mw_type, IBV_MW_TYPE_2);

    CONST(libc, RLIMIT_MEMLOCK);
    CONST(libc, RLIM_INFINITY);
    CONST(libc, POLLIN);
    CONST(libc, EINTR);
    CONST(libc, ENODATA);
    CONST(libc, EFD_NONBLOCK);
    CONST(libc, EFD_CLOEXEC);
    CONST(libc, F_GETFL);
    CONST(libc, F_SETFL);
    CONST(libc, O_NONBLOCK);

    CONST(errno, EPERM);
    CONST(errno, ENOENT);
    CONST(errno, EIO);
    CONST(errno, EAGAIN);
    CONST(errno, ENOMEM);
    CONST(errno, EACCES);
    CONST(errno, EFAULT);
    CONST(errno, EBUSY);
    CONST(errno, ENODEV);
    CONST(errno, EINVAL);
    CONST(errno, ENOSYS);
    CONST(errno, EOPNOTSUPP);
    CONST(errno, ECONNREFUSED);
    CONST(errno, ETIMEDOUT);
}

int main(void)
{
    structs();
    constants();
    return 0;
}
