package org.replayfarm.gpunode.translate;

/** The translator's units, each owned by one emitter (TRANSLATOR.md). */
public enum Unit {
    /** SOP1, SOP2, SOPC, SOPK: ScalarEmitter. */
    SCALAR,
    /** SOPP: branches, s_endpgm, s_barrier, waits, mode changes: BranchEmitter. */
    BRANCH,
    /** SMEM: scalar memory loads: SmemEmitter. */
    SMEM,
    /** VOP1, VOP2, VOP3, VOP3P, VOPC (with DPP and SDWA variants), VINTRP: VectorEmitter. */
    VECTOR,
    /** DS, FLAT, GLOBAL, SCRATCH, MUBUF without a format: MemoryEmitter. */
    MEMORY,
    /** MIMG, MTBUF, MUBUF *_format_*: ImageEmitter. */
    IMAGE,
    /** EXP: no compute program exports; refused. */
    NONE
}
