/* The message tables (message_table.c), for the codec's wrappers in messages.c. */
#ifndef KIX_PROTO_MESSAGE_TABLE_H
#define KIX_PROTO_MESSAGE_TABLE_H

#include "kix/messages.h"

extern const struct kix_msg_table kix_msg_limits_table;
extern const struct kix_msg_table kix_msg_fork_table;
extern const struct kix_msg_table kix_msg_info_table;
extern const struct kix_msg_table kix_msg_bundle_table;
extern const struct kix_msg_table kix_msg_submit_params_table;
extern const struct kix_msg_table kix_msg_submit_error_table;
extern const struct kix_msg_table kix_msg_submit_item_table;
extern const struct kix_msg_table kix_msg_submit_result_table;
extern const struct kix_msg_table kix_msg_get_object_params_table;
extern const struct kix_msg_table kix_msg_get_object_result_table;
extern const struct kix_msg_table kix_msg_get_objects_params_table;
extern const struct kix_msg_table kix_msg_get_objects_result_table;
extern const struct kix_msg_table kix_msg_get_entries_params_table;
extern const struct kix_msg_table kix_msg_entries_table;
extern const struct kix_msg_table kix_msg_checkpoint_params_table;
extern const struct kix_msg_table kix_msg_checkpoint_result_table;
extern const struct kix_msg_table kix_msg_index_params_table;
extern const struct kix_msg_table kix_msg_inclusion_result_table;
extern const struct kix_msg_table kix_msg_consistency_params_table;
extern const struct kix_msg_table kix_msg_consistency_result_table;
extern const struct kix_msg_table kix_msg_receipt_result_table;
extern const struct kix_msg_table kix_msg_resolve_params_table;
extern const struct kix_msg_table kix_msg_resolve_object_table;
extern const struct kix_msg_table kix_msg_resolve_entry_table;
extern const struct kix_msg_table kix_msg_resolve_result_table;
extern const struct kix_msg_table kix_msg_vindex_params_table;
extern const struct kix_msg_table kix_msg_vindex_result_table;
extern const struct kix_msg_table kix_msg_checkpoints_params_table;
extern const struct kix_msg_table kix_msg_checkpoint_item_table;
extern const struct kix_msg_table kix_msg_checkpoints_result_table;
extern const struct kix_msg_table kix_msg_query_params_table;
extern const struct kix_msg_table kix_msg_query_run_table;
extern const struct kix_msg_table kix_msg_query_result_table;
extern const struct kix_msg_table kix_msg_follow_params_table;
extern const struct kix_msg_table kix_msg_size_result_table;
extern const struct kix_msg_table kix_msg_replicated_params_table;
extern const struct kix_msg_table kix_msg_add_cosignature_params_table;
extern const struct kix_msg_table kix_msg_add_cosignature_result_table;

#endif
