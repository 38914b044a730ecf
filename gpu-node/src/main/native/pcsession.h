/*
 * The CUPTI PC-sampling session the JNI shim (replaycupti.c) and the diagnostic (pcdiag.c) share: plain C,
 * no JNI. Order (shared/reference/cupti-pc-sampling.md §1):
 *   pcs_init_activity (once per process, before any Enable) -> context current -> pcs_configure (Enable,
 *   stall reasons, buffers, one configuration) -> modules loaded -> per burst: cuCtxSynchronize,
 *   pcs_start, launches, pcs_stop, pcs_drain -> before a context reset and at exit: pcs_stop if started,
 *   pcs_drain, pcs_disable.
 */
#ifndef REPLAYFARM_PCSESSION_H
#define REPLAYFARM_PCSESSION_H

#include <stddef.h>
#include <stdint.h>
#include <cupti.h>
#include <cupti_activity.h>
#include <cupti_pcsampling.h>

#define PCS_BUFFER_PCS 1024                 /* PCs per GetData call */
#define PCS_MAX_ROUNDS 64                   /* GetData calls per drain at most */
#define PCS_SCRATCH_BYTES ((size_t)16 << 20)
#define PCS_HARDWARE_BYTES ((size_t)128 << 20)

/* What one drain did. */
typedef struct {
    int rounds;            /* GetData calls made */
    size_t pcs;            /* PC records handed to the callback */
    int capped;            /* stopped at PCS_MAX_ROUNDS with records still announced */
    int buffer_full;       /* GetData said the hardware buffer was full: Disable, Enable, configure again */
} pcs_drain_stats;

/* Called for every PC record of a drain; the record (functionName included) is valid during the call only. */
typedef void (*pcs_pc_fn)(void *arg, const CUpti_PCSamplingPCData *pc);
/* Called after every GetData call of a drain (rc, and the output buffer's counters). */
typedef void (*pcs_round_fn)(void *arg, int round, CUptiResult rc, const CUpti_PCSamplingData *out);
/* Called for every kernel activity record taken from the queue. */
typedef void (*pcs_kernel_fn)(void *arg, const char *name, uint64_t start, uint64_t end, uint32_t correlation,
                              uint32_t graph);

/* Each returns CUPTI_SUCCESS or the failing call's result, with *what naming the call. */
CUptiResult pcs_init_activity(const char **what);
CUptiResult pcs_configure(CUcontext ctx, CUpti_PCSamplingCollectionMode mode, const char **what);
CUptiResult pcs_start(CUcontext ctx, const char **what);
CUptiResult pcs_stop(CUcontext ctx, const char **what);
/* Bounded: at most PCS_MAX_ROUNDS calls; ends when nothing remains or a call returned no PCs. Only after a stop. */
CUptiResult pcs_drain(CUcontext ctx, pcs_pc_fn on_pc, pcs_round_fn on_round, void *arg, pcs_drain_stats *st,
                      const char **what);
CUptiResult pcs_disable(CUcontext ctx, const char **what);
CUptiResult pcs_flush_activity(int forced, const char **what);
size_t pcs_take_kernels(pcs_kernel_fn on_kernel, void *arg);
uint64_t pcs_kernels_dropped(void);

int pcs_enabled(void);
size_t pcs_num_stall_reasons(void);
uint32_t pcs_stall_reason_index(size_t i);
const char *pcs_stall_reason_name(size_t i);
/* The buffer handed to CUPTI in the configuration (read only; CUPTI writes late records there on Disable). */
const CUpti_PCSamplingData *pcs_config_buffer(void);
/* Each configuration attribute's status from the last pcs_configure. */
size_t pcs_attribute_count(void);
const CUpti_PCSamplingConfigurationInfo *pcs_attribute(size_t i);

const char *pcs_result_string(CUptiResult r);
CUptiResult pcs_version(uint32_t *v);
CUptiResult pcs_timestamp(uint64_t *t);
CUptiResult pcs_cubin_crc(CUpti_GetCubinCrcParams *p);

/* Diagnostic variants only (pcdiag): GetData into the configuration buffer; stall slots zeroed before each call. */
extern int pcs_variant_same_buffer;
extern int pcs_variant_zero_stall_slots;

#endif
