/*
 * pcsession.c against a fake CUPTI (no GPU): the call order of a configure, a drain that ends although the
 * fake never lowers remainingNumPcs, and one functionName shared by many records (across calls) that is read
 * and never freed by the session. Built with -Wl,--wrap=free; prints "OK" and exits 0, or names the failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcsession.h"

void __real_free(void *p);
static char *g_shared;
static int g_shared_frees;
void __wrap_free(void *p) {
    if (p != NULL && p == g_shared) g_shared_frees++;
    __real_free(p);
}

static char g_log[2048];
static int g_enabled;
static void logc(const char *c) { strcat(g_log, c); strcat(g_log, " "); }

CUptiResult cuptiGetVersion(uint32_t *v) { *v = 1; return CUPTI_SUCCESS; }
CUptiResult cuptiGetTimestamp(uint64_t *t) { *t = 1; return CUPTI_SUCCESS; }
CUptiResult cuptiGetCubinCrc(CUpti_GetCubinCrcParams *p) { p->cubinCrc = 1; return CUPTI_SUCCESS; }
CUptiResult cuptiGetResultString(CUptiResult r, const char **s) { (void)r; *s = "fake"; return CUPTI_SUCCESS; }
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc a, CUpti_BuffersCallbackCompleteFunc b) {
    (void)a; (void)b; logc(g_enabled ? "register(AFTER-ENABLE)" : "register"); return CUPTI_SUCCESS;
}
CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) { (void)k; logc("activity"); return g_enabled ? CUPTI_ERROR_NOT_COMPATIBLE : CUPTI_SUCCESS; }
CUptiResult cuptiActivityFlushAll(uint32_t f) { (void)f; return CUPTI_SUCCESS; }
CUptiResult cuptiActivityGetNextRecord(uint8_t *b, size_t v, CUpti_Activity **r) { (void)b; (void)v; (void)r; return CUPTI_ERROR_MAX_LIMIT_REACHED; }
CUptiResult cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p) { (void)p; logc("enable"); g_enabled = 1; return CUPTI_SUCCESS; }
CUptiResult cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p) { (void)p; logc("disable"); g_enabled = 0; return CUPTI_SUCCESS; }
CUptiResult cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p) {
    logc("numstall"); if (!g_enabled) return CUPTI_ERROR_INVALID_OPERATION; *p->numStallReasons = 2; return CUPTI_SUCCESS;
}
CUptiResult cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p) {
    logc("stall"); if (!g_enabled) return CUPTI_ERROR_INVALID_OPERATION;
    for (size_t i = 0; i < p->numStallReasons; i++) { p->stallReasonIndex[i] = (uint32_t)(i + 3); snprintf(p->stallReasons[i], CUPTI_STALL_REASON_STRING_SIZE, "r%u", (unsigned)(i % 100)); }
    return CUPTI_SUCCESS;
}
static CUpti_PCSamplingData *g_cfg;
CUptiResult cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p) {
    logc("config"); if (!g_enabled) return CUPTI_ERROR_INVALID_OPERATION;
    for (size_t i = 0; i < p->numAttributes; i++) {
        p->pPCSamplingConfigurationInfo[i].attributeStatus = CUPTI_SUCCESS;
        if (p->pPCSamplingConfigurationInfo[i].attributeType == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER)
            g_cfg = p->pPCSamplingConfigurationInfo[i].attributeData.samplingDataBufferData.samplingDataBuffer;
    }
    return CUPTI_SUCCESS;
}
CUptiResult cuptiPCSamplingStart(CUpti_PCSamplingStartParams *p) { (void)p; logc("start"); return CUPTI_SUCCESS; }
CUptiResult cuptiPCSamplingStop(CUpti_PCSamplingStopParams *p) { (void)p; logc("stop"); return CUPTI_SUCCESS; }
static int g_calls, g_same_buffer;
/* three records per call, all of one function, and remainingNumPcs never lowered */
CUptiResult cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p) {
    CUpti_PCSamplingData *d = p->pcSamplingData;
    g_calls++;
    if (d == g_cfg) g_same_buffer = 1;
    for (size_t i = 0; i < 3; i++) {
        d->pPcData[i].functionName = g_shared;
        d->pPcData[i].pcOffset = i * 16;
        if (d->pPcData[i].stallReasonCount < 1) return CUPTI_ERROR_INVALID_PARAMETER;
        d->pPcData[i].stallReason[0].pcSamplingStallReasonIndex = 3;
        d->pPcData[i].stallReason[0].samples = 1;
        d->pPcData[i].stallReasonCount = 1;
    }
    d->totalNumPcs = 3;
    d->remainingNumPcs = 1000;
    return CUPTI_SUCCESS;
}

static size_t g_read;
static void on_pc(void *arg, const CUpti_PCSamplingPCData *pc) {
    (void)arg;
    if (pc->functionName != NULL && strcmp(pc->functionName, "spin") == 0) g_read++;
}

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return 1; } while (0)

int main(void) {
    g_shared = malloc(8);
    strcpy(g_shared, "spin");
    const char *what;
    CUcontext ctx = (CUcontext)0x10;
    if (pcs_init_activity(&what) != CUPTI_SUCCESS) FAIL("init activity: %s", what);
    if (pcs_configure(ctx, CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED, &what) != CUPTI_SUCCESS) FAIL("configure: %s", what);
    if (strcmp(g_log, "register activity enable numstall stall config ") != 0) FAIL("order: %s", g_log);
    if (pcs_init_activity(&what) != CUPTI_SUCCESS || strstr(g_log, "AFTER") != NULL) FAIL("activity again after Enable: %s", g_log);
    pcs_start(ctx, &what);
    pcs_stop(ctx, &what);
    for (int drain = 0; drain < 2; drain++) {
        pcs_drain_stats st;
        g_calls = 0;
        if (pcs_drain(ctx, on_pc, NULL, NULL, &st, &what) != CUPTI_SUCCESS) FAIL("drain: %s", what);
        if (g_calls != PCS_MAX_ROUNDS || st.rounds != PCS_MAX_ROUNDS || !st.capped) FAIL("drain did not end at the cap: %d calls", g_calls);
    }
    if (g_same_buffer) FAIL("GetData was given the configuration buffer");
    if (g_read != 2 * 3 * PCS_MAX_ROUNDS) FAIL("name read %zu times", g_read);
    pcs_disable(ctx, &what);
    if (g_shared_frees != 0) FAIL("the shared functionName was freed %d time(s) by the session", g_shared_frees);
    if (strcmp(g_shared, "spin") != 0) FAIL("the shared functionName was overwritten");
    free(g_shared);
    if (g_shared_frees != 1) FAIL("free accounting");
    printf("OK\n");
    return 0;
}
