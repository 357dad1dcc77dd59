/* A progress and log sink: the library's progress reports (DataLoader batches, Trainer steps)
 * and its informational and warning messages go to one process-wide C callback instead of
 * stderr.
 *
 * Which thread: the sink runs on the thread of the mxc_ call that reports (the caller of
 * mxc_dataloader_next, mxc_trainer_step, ...), before that call returns. Calls are serialized:
 * never two at once, even when several threads report, so the sink needs no lock of its own
 * (it may call mxc_ functions, also ones that report again, and mxc_log_set_sink). */
#ifndef MXC_LOG_H_
#define MXC_LOG_H_

#include "mxc/base.h"
#include "mxc/data.h" /* mxc_user_data_free_fn */

MXC_EXTERN_C_BEGIN

/* Levels. Progress: `done` of `total` units of the source's work (total -1 when unknown);
 * other levels: done = total = -1. */
#define MXC_LOG_PROGRESS 0
#define MXC_LOG_INFO 1
#define MXC_LOG_WARNING 2
#define MXC_LOG_ERROR 3

/* source: the reporting function or component ("mxc_dataloader_next", "mxc_trainer_step",
 * "gluon"); message: UTF-8 text ("batch 3/469", "step 12"). Both valid during the call only.
 * Reports:
 *   mxc_dataloader_next  PROGRESS after each batch: done = the batch's 1-based index in the
 *                        epoch, total = batches per epoch; message "batch <done>/<total>".
 *   mxc_trainer_step     PROGRESS after each step: done = the optimizer's update count,
 *                        total = -1; message "step <done>".
 * A returned status is freed and otherwise ignored: a sink never fails the reporting call. */
typedef mxc_status* (*mxc_log_fn)(void* user_data, int32_t level, const char* source,
                                  const char* message, int64_t done, int64_t total);

/* Installs `fn` as the sink for messages of level >= min_level (fn NULL: the default sink,
 * which writes WARNING and ERROR messages to stderr and drops the rest). The previous sink's
 * user_data is freed (its free function called once) when no report is using it any more; on
 * success the library owns user_data and frees it once the sink is replaced (at the latest by
 * mxc_log_set_sink(NULL, NULL, NULL, 0)); never if this call fails.
 * Errors: min_level outside MXC_LOG_PROGRESS..MXC_LOG_ERROR, user_data or free_user_data
 * without fn. Threads: any. */
MXC_STATUS mxc_log_set_sink(mxc_log_fn fn, void* user_data, mxc_user_data_free_fn free_user_data,
                            int32_t min_level) MXC_NOEXCEPT;

/* Sends a message through the current sink as the library does (for bindings that route their
 * own messages the same way, and tests). Errors: an unknown level, NULL or invalid UTF-8
 * source/message. Threads: any. */
MXC_STATUS mxc_log_message(int32_t level, const char* source, const char* message, int64_t done,
                           int64_t total) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_LOG_H_ */
