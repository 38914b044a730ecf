/*
 * rt_mem.h: the memory unit of the translation (DS, FLAT/GLOBAL/SCRATCH, MUBUF non-format, atomics).
 *
 * Written from the RDNA 2 ISA guide and the project's data facts (hsa-abi.md, translator.md); a second,
 * independent implementation next to the host model. Every function is a pure RT_FN over raw bits and an
 * explicit memory context, so the same text runs under nvcc (sm_90) and g++ (the cuda-cpu runner).
 *
 * Guest memory is reached only through the range table: every access is checked for range (all of its
 * bytes inside ONE captured range) before any byte is touched; unaligned accesses are split into bytes,
 * so the device never sees a misaligned or out-of-bounds access (both are sticky CUDA errors). Functions
 * that can fault return an RT_MEM_* code (0 = done) and the faulting guest address through *fault_addr;
 * they change nothing when they fault. The caller (generated code) turns a code into rt_fault(...), which
 * names lane, PC and address.
 *
 * Conventions shared with the host model (data facts, not code):
 *   - plain loads and stores of any width may be unaligned in every space; atomics must be naturally
 *     aligned (4 or 8 bytes), else RT_MEM_FAULT_ALIGN;
 *   - LDS: byte address in 32 bits (ADDR + OFFSET wraps); an access any byte of which lies at or past the
 *     group's LDS size is out of range: a read gives 0, a write or atomic changes nothing (an atomic gives 0);
 *   - apertures: a FLAT address whose high dword is the shared aperture's goes to LDS, the private
 *     aperture's to the lane's private memory (low dword = offset), any other to guest memory;
 *   - private memory is dword-interleaved across the wave's lanes (hsa-abi.md 3.2): byte o of lane L of a
 *     wave of W lanes whose private base is B lives at B + (o / 4) * 4W + 4L + o % 4, inside the group's
 *     scratch backing store [scratch_lo, scratch_lo + scratch_bytes) (else RT_MEM_FAULT_SCRATCH);
 *   - buffer (MUBUF) addresses inside the scratch backing store go there, any other through the ranges.
 */
#pragma once
#include "rt_base.h"
#include "rt_atomic.h"

/* ------------------------------------------------------------------ fault codes */
#define RT_MEM_OK 0
#define RT_MEM_FAULT_RANGE 1    /* an access outside every memory range */
#define RT_MEM_FAULT_ALIGN 2    /* an atomic that is not naturally aligned */
#define RT_MEM_FAULT_SCRATCH 3  /* a private access outside the group's scratch */
#define RT_MEM_FAULT_READONLY 4 /* a store or atomic into a range marked read-only */

/* A fault code as text (for fault records). */
RT_FN const char *rt_mem_fault_text(int code) {
  switch (code) {
  case RT_MEM_FAULT_RANGE: return "access outside every memory range";
  case RT_MEM_FAULT_ALIGN: return "misaligned atomic (atomics must be naturally aligned)";
  case RT_MEM_FAULT_SCRATCH: return "private access outside the group's scratch";
  case RT_MEM_FAULT_READONLY: return "store into a read-only memory range";
  default: return "no fault";
  }
}

/* ------------------------------------------------------------------ the range table */
#ifndef RT_SLOT
/* Included without replay_rt.h (unit tests): the same range record as replay_rt.h's launch bundle. */
enum { RT_RANGE_READ = 1, RT_RANGE_WRITE = 2 };
typedef struct rt_range {
  uint64_t lo;
  uint64_t size;
  uint8_t *base;
  uint32_t flags;
  uint32_t index; /* the capture's range index n */
} rt_range_t;
#endif

/* A range marked readable but not writable refuses stores and atomics (RT_MEM_FAULT_READONLY); flags 0 is
 * read-write, as every captured range is for the host model. The alignment of base must be that of lo
 * modulo 16: a guest address's alignment is then its device address's. */
RT_FN int rt_mem_readonly(const rt_range_t *r) {
  return (r->flags & RT_RANGE_READ) && !(r->flags & RT_RANGE_WRITE);
}

/* What one group's memory accesses see. */
typedef struct rt_mem {
  const rt_range_t *ranges; /* sorted by lo, not overlapping */
  uint32_t nranges;
  uint32_t lds_bytes;       /* the group's LDS allocation */
  uint8_t *lds;             /* dynamic shared memory on the GPU, a per-group buffer on the CPU */
  uint8_t *scratch;         /* the group's scratch backing store */
  uint64_t scratch_lo;      /* its guest address (GuestLayout.SCRATCH_BASE) */
  uint64_t scratch_bytes;
  uint32_t shared_hi;       /* high dword of src_shared_base (1 << 16: LDS at 1 << 48) */
  uint32_t private_hi;      /* high dword of src_private_base (2 << 16) */
} rt_mem_t;

/* The range holding all of [a, a + n), or 0. */
RT_FN const rt_range_t *rt_mem_find(const rt_mem_t *m, uint64_t a, uint32_t n) {
  uint32_t lo = 0, hi = m->nranges;
  while (lo < hi) { /* first range with r.lo > a */
    uint32_t mid = (lo + hi) >> 1;
    if (m->ranges[mid].lo <= a) lo = mid + 1; else hi = mid;
  }
  if (lo == 0) return 0;
  const rt_range_t *r = &m->ranges[lo - 1];
  uint64_t at = a - r->lo;
  if (at >= r->size || (uint64_t)n > r->size - at) return 0;
  return r;
}

/* Device pointer of guest [a, a + n) for a load (write = 0) or a store (write = 1); 0 and *code on fault. */
RT_FN uint8_t *rt_mem_global_ptr(const rt_mem_t *m, uint64_t a, uint32_t n, int write, int *code) {
  const rt_range_t *r = rt_mem_find(m, a, n);
  if (!r) { *code = RT_MEM_FAULT_RANGE; return 0; }
  if (write && rt_mem_readonly(r)) { *code = RT_MEM_FAULT_READONLY; return 0; }
  *code = RT_MEM_OK;
  return r->base + (a - r->lo);
}

/* Copies n bytes between device memory and a local buffer with accesses no wider than the alignment
 * allows (the device never sees a misaligned access; the CPU has no such limit). */
RT_FN void rt_mem_copy_in(void *dst, const uint8_t *src, uint32_t n) {
#if RT_GPU
  uint8_t *d = (uint8_t *)dst;
  uintptr_t s = (uintptr_t)src;
  if ((s & 3) == 0 && (n & 3) == 0) {
    for (uint32_t i = 0; i < n; i += 4) { uint32_t v = *(const volatile uint32_t *)(src + i); memcpy(d + i, &v, 4); }
  } else if ((s & 1) == 0 && (n & 1) == 0) {
    for (uint32_t i = 0; i < n; i += 2) { uint16_t v = *(const volatile uint16_t *)(src + i); memcpy(d + i, &v, 2); }
  } else {
    for (uint32_t i = 0; i < n; i++) d[i] = *(const volatile uint8_t *)(src + i);
  }
#else
  memcpy(dst, src, n);
#endif
}

RT_FN void rt_mem_copy_out(uint8_t *dst, const void *src, uint32_t n) {
#if RT_GPU
  const uint8_t *s = (const uint8_t *)src;
  uintptr_t d = (uintptr_t)dst;
  if ((d & 3) == 0 && (n & 3) == 0) {
    for (uint32_t i = 0; i < n; i += 4) { uint32_t v; memcpy(&v, s + i, 4); *(volatile uint32_t *)(dst + i) = v; }
  } else if ((d & 1) == 0 && (n & 1) == 0) {
    for (uint32_t i = 0; i < n; i += 2) { uint16_t v; memcpy(&v, s + i, 2); *(volatile uint16_t *)(dst + i) = v; }
  } else {
    for (uint32_t i = 0; i < n; i++) *(volatile uint8_t *)(dst + i) = s[i];
  }
#else
  memcpy(dst, src, n);
#endif
}

/* Guest memory through the ranges: n (1..16) bytes, little-endian, into / from buf. */
RT_FN int rt_mem_global_load(const rt_mem_t *m, uint64_t a, uint32_t n, void *buf, uint64_t *fault_addr) {
  int code;
  const uint8_t *p = rt_mem_global_ptr(m, a, n, 0, &code);
  if (!p) { *fault_addr = a; return code; }
  rt_mem_copy_in(buf, p, n);
  return RT_MEM_OK;
}

RT_FN int rt_mem_global_store(const rt_mem_t *m, uint64_t a, uint32_t n, const void *buf, uint64_t *fault_addr) {
  int code;
  uint8_t *p = rt_mem_global_ptr(m, a, n, 1, &code);
  if (!p) { *fault_addr = a; return code; }
  rt_mem_copy_out(p, buf, n);
  return RT_MEM_OK;
}

/* ------------------------------------------------------------------ private (scratch) memory */

/* The guest address of byte `off` of lane `lane`'s private memory (dword-interleaved, hsa-abi.md 3.2). */
RT_FN uint64_t rt_mem_private_addr(uint64_t wave_base, uint32_t off, uint32_t lane, uint32_t wave_size) {
  return wave_base + (uint64_t)(off >> 2) * 4u * wave_size + 4u * (uint64_t)lane + (off & 3u);
}

/* The scratch byte at guest address a, or 0 when a is outside the group's scratch. */
RT_FN uint8_t *rt_mem_scratch_byte(const rt_mem_t *m, uint64_t a) {
  uint64_t at = a - m->scratch_lo;
  return a >= m->scratch_lo && at < m->scratch_bytes ? m->scratch + at : 0;
}

/* Private bytes [off, off + n) of a lane (offsets wrap in 32 bits): checked whole, then moved. */
RT_FN int rt_mem_private_load(const rt_mem_t *m, uint64_t wave_base, uint32_t off, uint32_t n, uint32_t lane,
                              uint32_t wave_size, void *buf, uint64_t *fault_addr) {
  uint8_t *p[16];
  for (uint32_t i = 0; i < n; i++) {
    uint64_t a = rt_mem_private_addr(wave_base, off + i, lane, wave_size);
    p[i] = rt_mem_scratch_byte(m, a);
    if (!p[i]) { *fault_addr = a; return RT_MEM_FAULT_SCRATCH; }
  }
  for (uint32_t i = 0; i < n; i++) ((uint8_t *)buf)[i] = *p[i];
  return RT_MEM_OK;
}

RT_FN int rt_mem_private_store(const rt_mem_t *m, uint64_t wave_base, uint32_t off, uint32_t n, uint32_t lane,
                               uint32_t wave_size, const void *buf, uint64_t *fault_addr) {
  uint8_t *p[16];
  for (uint32_t i = 0; i < n; i++) {
    uint64_t a = rt_mem_private_addr(wave_base, off + i, lane, wave_size);
    p[i] = rt_mem_scratch_byte(m, a);
    if (!p[i]) { *fault_addr = a; return RT_MEM_FAULT_SCRATCH; }
  }
  for (uint32_t i = 0; i < n; i++) *p[i] = ((const uint8_t *)buf)[i];
  return RT_MEM_OK;
}

/* ------------------------------------------------------------------ atomics (the arithmetic: rt_atomic.h) */

/* Performs atomic `op` on the naturally aligned `bytes`-wide datum at device pointer p, returns the value
 * before it. The GPU uses the native atomic where its semantics are the ISA's, else an atomicCAS loop;
 * the CPU runner is single-threaded and deterministic, so a plain read-modify-write is the atomic. */
RT_FN uint64_t rt_mem_rmw(uint8_t *p, int op, uint64_t data, uint64_t cmp, int bytes) {
#if RT_GPU
  if (bytes == 4) {
    unsigned int *q = (unsigned int *)p;
    unsigned int d = (unsigned int)data;
    switch (op) {
    case RT_AOP_SWAP: return atomicExch(q, d);
    case RT_AOP_CMPSWAP: return atomicCAS(q, (unsigned int)cmp, d);
    case RT_AOP_ADD: return atomicAdd(q, d);
    case RT_AOP_SUB: return atomicSub(q, d);
    case RT_AOP_SMIN: return (uint32_t)atomicMin((int *)q, (int)d);
    case RT_AOP_SMAX: return (uint32_t)atomicMax((int *)q, (int)d);
    case RT_AOP_UMIN: return atomicMin(q, d);
    case RT_AOP_UMAX: return atomicMax(q, d);
    case RT_AOP_AND: return atomicAnd(q, d);
    case RT_AOP_OR: return atomicOr(q, d);
    case RT_AOP_XOR: return atomicXor(q, d);
    case RT_AOP_INC: return atomicInc(q, d); /* ((old >= d) ? 0 : old + 1): the ISA's inc */
    case RT_AOP_DEC: return atomicDec(q, d); /* ((old == 0 || old > d) ? d : old - 1): the ISA's dec */
    default: {
      unsigned int old = *(volatile unsigned int *)q, assumed;
      do {
        assumed = old;
        unsigned int nv = (unsigned int)rt_atomic_op(op, assumed, data, cmp, 4);
        old = atomicCAS(q, assumed, nv);
      } while (old != assumed);
      return old;
    }
    }
  } else {
    unsigned long long *q = (unsigned long long *)p;
    unsigned long long d = (unsigned long long)data;
    switch (op) {
    case RT_AOP_SWAP: return atomicExch(q, d);
    case RT_AOP_CMPSWAP: return atomicCAS(q, (unsigned long long)cmp, d);
    case RT_AOP_ADD: return atomicAdd(q, d);
    case RT_AOP_SUB: return atomicAdd(q, (unsigned long long)(0 - d));
    case RT_AOP_SMIN: return (uint64_t)atomicMin((long long *)q, (long long)d);
    case RT_AOP_SMAX: return (uint64_t)atomicMax((long long *)q, (long long)d);
    case RT_AOP_UMIN: return atomicMin(q, d);
    case RT_AOP_UMAX: return atomicMax(q, d);
    case RT_AOP_AND: return atomicAnd(q, d);
    case RT_AOP_OR: return atomicOr(q, d);
    case RT_AOP_XOR: return atomicXor(q, d);
    default: {
      unsigned long long old = *(volatile unsigned long long *)q, assumed;
      do {
        assumed = old;
        unsigned long long nv = (unsigned long long)rt_atomic_op(op, assumed, data, cmp, 8);
        old = atomicCAS(q, assumed, nv);
      } while (old != assumed);
      return old;
    }
    }
  }
#else
  uint64_t old = 0;
  memcpy(&old, p, (size_t)bytes);
  uint64_t nv = rt_atomic_op(op, old, data, cmp, bytes);
  memcpy(p, &nv, (size_t)bytes);
  return old;
#endif
}

/* An atomic on guest memory: range and alignment checked first. */
RT_FN int rt_mem_global_atomic(const rt_mem_t *m, uint64_t a, int op, uint64_t data, uint64_t cmp, int bytes,
                               uint64_t *old, uint64_t *fault_addr) {
  if (a & (uint64_t)(bytes - 1)) { *fault_addr = a; return RT_MEM_FAULT_ALIGN; }
  int code;
  uint8_t *p = rt_mem_global_ptr(m, a, (uint32_t)bytes, 1, &code);
  if (!p) { *fault_addr = a; return code; }
  *old = rt_mem_rmw(p, op, data, cmp, bytes);
  return RT_MEM_OK;
}

/* An atomic on private memory: the aligned datum spans one (4) or two (8) interleaved dwords. */
RT_FN int rt_mem_private_atomic(const rt_mem_t *m, uint64_t wave_base, uint32_t off, uint32_t lane,
                                uint32_t wave_size, int op, uint64_t data, uint64_t cmp, int bytes,
                                uint64_t *old, uint64_t *fault_addr) {
  if (off & (uint32_t)(bytes - 1)) { *fault_addr = off; return RT_MEM_FAULT_ALIGN; }
  uint8_t b[8];
  int rc = rt_mem_private_load(m, wave_base, off, (uint32_t)bytes, lane, wave_size, b, fault_addr);
  if (rc) return rc;
  uint64_t o = 0;
  memcpy(&o, b, (size_t)bytes);
  uint64_t nv = rt_atomic_op(op, o, data, cmp, bytes);
  memcpy(b, &nv, (size_t)bytes);
  rt_mem_private_store(m, wave_base, off, (uint32_t)bytes, lane, wave_size, b, fault_addr);
  *old = o;
  return RT_MEM_OK;
}

/* ------------------------------------------------------------------ LDS (DS) */

/* ADDR + OFFSET in 32 bits. */
RT_FN uint32_t rt_ds_addr(uint32_t vaddr, uint32_t offset) { return vaddr + offset; }

RT_FN int rt_ds_in_range(const rt_mem_t *m, uint32_t a, uint32_t n) {
  return (uint64_t)a + n <= (uint64_t)m->lds_bytes;
}

/* n (1..16) bytes at LDS address a: 0s when out of range. */
RT_FN void rt_ds_load(const rt_mem_t *m, uint32_t a, uint32_t n, void *buf) {
  if (rt_ds_in_range(m, a, n)) rt_mem_copy_in(buf, m->lds + a, n);
  else memset(buf, 0, n);
}

/* Dropped when out of range. */
RT_FN void rt_ds_store(const rt_mem_t *m, uint32_t a, uint32_t n, const void *buf) {
  if (rt_ds_in_range(m, a, n)) rt_mem_copy_out(m->lds + a, buf, n);
}

/* An LDS atomic: misaligned faults; out of range changes nothing and returns 0. */
RT_FN int rt_ds_atomic(const rt_mem_t *m, uint32_t a, int op, uint64_t data, uint64_t cmp, int bytes,
                       uint64_t *old, uint64_t *fault_addr) {
  if (a & (uint32_t)(bytes - 1)) { *fault_addr = a; return RT_MEM_FAULT_ALIGN; }
  *old = rt_ds_in_range(m, a, (uint32_t)bytes) ? rt_mem_rmw(m->lds + a, op, data, cmp, bytes) : 0;
  return RT_MEM_OK;
}

/* ds_swizzle_b32: the lane that lane `lane` reads. OFFSET[15] set: QUAD_PERM within each quad, the selector of
 * lane i is OFFSET[2k+1:2k] for k = i % 4; clear: BITMASK_PERM within each group of 32 lanes,
 * ((i & and_mask) | or_mask) ^ xor_mask with and = OFFSET[4:0], or = OFFSET[9:5], xor = OFFSET[14:10]. */
RT_FN uint32_t rt_ds_swizzle_src(uint32_t lane, uint32_t pattern) {
  if (pattern & 0x8000u) return (lane & ~3u) | ((pattern >> (2u * (lane & 3u))) & 3u);
  uint32_t and_m = pattern & 0x1Fu, or_m = (pattern >> 5) & 0x1Fu, xor_m = (pattern >> 10) & 0x1Fu;
  return (lane & ~31u) | ((((lane & 31u) & and_m) | or_m) ^ xor_m);
}

/* ds_permute_b32 / ds_bpermute_b32: the lane a byte address names, (ADDR + OFFSET) / 4; on gfx10 a wave64
 * permute stays within the 32-lane half of lane `lane` (translator.md: DS permutes do not cross halves). */
RT_FN uint32_t rt_ds_permute_lane(uint32_t vaddr, uint32_t offset, uint32_t lane, uint32_t wave_size) {
  uint32_t l = ((vaddr + offset) >> 2) & 31u;
  return wave_size == 64 ? (lane & 32u) | l : l;
}

/* ------------------------------------------------------------------ MUBUF (non-format) */

/* A buffer resource (V#), gfx10 layout: word0 base[31:0]; word1 base[47:32] in [15:0], STRIDE [29:16],
 * SWIZZLE_ENABLE [31]; word2 NUM_RECORDS; word3 DST_SEL [11:0], FORMAT [18:12], INDEX_STRIDE [22:21]
 * (8 << n lanes), ADD_TID_ENABLE [23], OOB_SELECT [29:28]. */
typedef struct rt_vsharp {
  uint64_t base;
  uint32_t stride;
  uint32_t num_records;
  uint32_t index_stride;
  uint32_t oob_select;
  int swizzle;
  int add_tid;
} rt_vsharp_t;

RT_FN rt_vsharp_t rt_buf_vsharp(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
  rt_vsharp_t v;
  v.base = (uint64_t)w0 | ((uint64_t)(w1 & 0xFFFFu) << 32);
  v.stride = (w1 >> 16) & 0x3FFFu;
  v.swizzle = (int)(w1 >> 31);
  v.num_records = w2;
  v.index_stride = 8u << ((w3 >> 21) & 3u);
  v.add_tid = (int)((w3 >> 23) & 1u);
  v.oob_select = (w3 >> 28) & 3u;
  return v;
}

/* One lane's buffer access: index, offset within the record (32 bits), SGPR offset. */
typedef struct rt_buf_lane {
  uint64_t index;
  uint32_t offset;
  uint32_t soffset;
} rt_buf_lane_t;

/* index = (IDXEN ? VADDR[0] : 0) + (ADD_TID ? lane : 0); offset = (OFFEN ? VADDR[IDXEN] : 0) + OFFSET. */
RT_FN rt_buf_lane_t rt_buf_lane(const rt_vsharp_t *v, int idxen, int offen, uint32_t vaddr0, uint32_t vaddr1,
                                uint32_t inst_offset, uint32_t soffset, uint32_t lane) {
  rt_buf_lane_t l;
  l.index = (idxen ? (uint64_t)vaddr0 : 0) + (v->add_tid ? (uint64_t)lane : 0);
  l.offset = (offen ? (idxen ? vaddr1 : vaddr0) : 0u) + inst_offset;
  l.soffset = soffset;
  return l;
}

/* Whether bytes [k, k + n) of the access pass the range check (ISA "range checking"; SOFFSET is not part
 * of the checked offset): OOB_SELECT 0: index < NUM_RECORDS and offset + n <= STRIDE; 1: index <
 * NUM_RECORDS; 2: NUM_RECORDS != 0; 3 (raw): offset + n <= NUM_RECORDS (bytes). */
RT_FN int rt_buf_in_range(const rt_vsharp_t *v, const rt_buf_lane_t *l, uint32_t k, uint32_t n) {
  uint64_t end = (uint64_t)l->offset + k + n;
  switch (v->oob_select) {
  case 0: return l->index < v->num_records && end <= v->stride;
  case 1: return l->index < v->num_records;
  case 2: return v->num_records != 0;
  default: return end <= v->num_records;
  }
}

/* The guest address of byte k of the access: linear index * STRIDE + offset; swizzled (element 4 bytes,
 * index stride IS): ((index / IS) * STRIDE + (offset / 4) * 4) * IS + (index % IS) * 4 + offset % 4. */
RT_FN uint64_t rt_buf_addr(const rt_vsharp_t *v, const rt_buf_lane_t *l, uint32_t k) {
  uint64_t off = (uint64_t)l->offset + k;
  uint64_t bo;
  if (v->swizzle) {
    uint64_t is = v->index_stride;
    bo = ((l->index / is) * v->stride + (off >> 2) * 4u) * is + (l->index % is) * 4u + (off & 3u);
  } else {
    bo = l->index * v->stride + off;
  }
  return v->base + l->soffset + bo;
}

/* Bytes [a, a + n) through a buffer: the scratch backing store when inside it, else the ranges. */
RT_FN uint8_t *rt_buf_ptr(const rt_mem_t *m, uint64_t a, uint32_t n, int write, int *code) {
  if (a >= m->scratch_lo && a - m->scratch_lo < m->scratch_bytes) {
    if (a - m->scratch_lo + n <= m->scratch_bytes) { *code = RT_MEM_OK; return m->scratch + (a - m->scratch_lo); }
    *code = RT_MEM_FAULT_SCRATCH;
    return 0;
  }
  return rt_mem_global_ptr(m, a, n, write, code);
}

/* The contiguous pieces of an access of n bytes: dword accesses (n >= 4) are range-checked per dword,
 * sub-dword ones whole (ISA: "load/store-dword-x{2,3,4} range-check per component"). A swizzled access
 * is moved byte by byte (each byte has its own address); a linear one in its checked pieces. */
RT_FN int rt_buf_load(const rt_mem_t *m, const rt_vsharp_t *v, const rt_buf_lane_t *l, uint32_t n, void *buf,
                      uint64_t *fault_addr) {
  uint8_t *out = (uint8_t *)buf;
  uint32_t chunk = n >= 4 ? 4 : n;
  uint8_t *p[16];
  int in[4];
  for (uint32_t k = 0; k < n; k += chunk) { /* check everything first */
    in[k / 4] = rt_buf_in_range(v, l, k, chunk);
    if (!in[k / 4]) continue;
    for (uint32_t i = 0; i < chunk; i++) {
      int code;
      uint64_t a = rt_buf_addr(v, l, k + i);
      p[k + i] = rt_buf_ptr(m, a, 1, 0, &code);
      if (!p[k + i]) { *fault_addr = a; return code; }
    }
  }
  for (uint32_t k = 0; k < n; k += chunk) {
    for (uint32_t i = 0; i < chunk; i++) out[k + i] = in[k / 4] ? *(volatile uint8_t *)p[k + i] : 0;
  }
  return RT_MEM_OK;
}

RT_FN int rt_buf_store(const rt_mem_t *m, const rt_vsharp_t *v, const rt_buf_lane_t *l, uint32_t n, const void *buf,
                       uint64_t *fault_addr) {
  const uint8_t *src = (const uint8_t *)buf;
  uint32_t chunk = n >= 4 ? 4 : n;
  uint8_t *p[16];
  int in[4];
  for (uint32_t k = 0; k < n; k += chunk) {
    in[k / 4] = rt_buf_in_range(v, l, k, chunk);
    if (!in[k / 4]) continue;
    for (uint32_t i = 0; i < chunk; i++) {
      int code;
      uint64_t a = rt_buf_addr(v, l, k + i);
      p[k + i] = rt_buf_ptr(m, a, 1, 1, &code);
      if (!p[k + i]) { *fault_addr = a; return code; }
    }
  }
  for (uint32_t k = 0; k < n; k += chunk) {
    if (!in[k / 4]) continue;
    for (uint32_t i = 0; i < chunk; i++) *(volatile uint8_t *)p[k + i] = src[k + i];
  }
  return RT_MEM_OK;
}

/* A buffer atomic: all or nothing (out of range: nothing changes, the result is 0); aligned or a fault. */
RT_FN int rt_buf_atomic(const rt_mem_t *m, const rt_vsharp_t *v, const rt_buf_lane_t *l, int op, uint64_t data,
                        uint64_t cmp, int bytes, uint64_t *old, uint64_t *fault_addr) {
  *old = 0;
  if (!rt_buf_in_range(v, l, 0, (uint32_t)bytes)) return RT_MEM_OK;
  uint64_t a = rt_buf_addr(v, l, 0);
  if (a & (uint64_t)(bytes - 1)) { *fault_addr = a; return RT_MEM_FAULT_ALIGN; }
  int code;
  uint8_t *p = rt_buf_ptr(m, a, (uint32_t)bytes, 1, &code);
  if (!p) { *fault_addr = a; return code; }
  *old = rt_mem_rmw(p, op, data, cmp, bytes);
  return RT_MEM_OK;
}

/* ------------------------------------------------------------------ loaded bytes into VGPRs */

/* Register value of a sub-dword load of n (1, 2) bytes: zero- or sign-extended to 32 bits. */
RT_FN uint32_t rt_mem_extend(const uint8_t *b, uint32_t n, int is_signed) {
  uint32_t raw = n == 1 ? b[0] : (uint32_t)b[0] | ((uint32_t)b[1] << 8);
  if (is_signed) raw = n == 1 ? (uint32_t)(int32_t)(int8_t)raw : (uint32_t)(int32_t)(int16_t)raw;
  return raw;
}

/* A D16 load into half `hi` (0 low, 1 high) of `old`: the 16 low bits of the extended value land there,
 * the other half is kept. */
RT_FN uint32_t rt_mem_d16(uint32_t old, uint32_t value, int hi) {
  return hi ? (old & 0xFFFFu) | (value << 16) : (old & 0xFFFF0000u) | (value & 0xFFFFu);
}

/* Little-endian dword d of a byte buffer. */
RT_FN uint32_t rt_mem_dword(const uint8_t *b, uint32_t d) {
  uint32_t v;
  memcpy(&v, b + 4 * d, 4);
  return v;
}

RT_FN void rt_mem_put_dword(uint8_t *b, uint32_t d, uint32_t v) { memcpy(b + 4 * d, &v, 4); }

/* ------------------------------------------------------------------ FLAT: the apertures */

/* Where a FLAT address goes: 1 LDS (shared aperture), 2 private (private aperture), 0 guest memory. */
RT_FN int rt_flat_space(const rt_mem_t *m, uint64_t a) {
  uint32_t hi = (uint32_t)(a >> 32);
  return hi == m->shared_hi ? 1 : hi == m->private_hi ? 2 : 0;
}

/* A FLAT load of n bytes at a for lane `lane` of a wave of W lanes whose private base is pbase. */
RT_FN int rt_flat_load(const rt_mem_t *m, uint64_t a, uint32_t n, uint64_t pbase, uint32_t lane, uint32_t w,
                       void *buf, uint64_t *fault_addr) {
  switch (rt_flat_space(m, a)) {
  case 1: rt_ds_load(m, (uint32_t)a, n, buf); return RT_MEM_OK;
  case 2: return rt_mem_private_load(m, pbase, (uint32_t)a, n, lane, w, buf, fault_addr);
  default: return rt_mem_global_load(m, a, n, buf, fault_addr);
  }
}

RT_FN int rt_flat_store(const rt_mem_t *m, uint64_t a, uint32_t n, uint64_t pbase, uint32_t lane, uint32_t w,
                        const void *buf, uint64_t *fault_addr) {
  switch (rt_flat_space(m, a)) {
  case 1: rt_ds_store(m, (uint32_t)a, n, buf); return RT_MEM_OK;
  case 2: return rt_mem_private_store(m, pbase, (uint32_t)a, n, lane, w, buf, fault_addr);
  default: return rt_mem_global_store(m, a, n, buf, fault_addr);
  }
}

RT_FN int rt_flat_atomic(const rt_mem_t *m, uint64_t a, uint64_t pbase, uint32_t lane, uint32_t w, int op,
                         uint64_t data, uint64_t cmp, int bytes, uint64_t *old, uint64_t *fault_addr) {
  switch (rt_flat_space(m, a)) {
  case 1: return rt_ds_atomic(m, (uint32_t)a, op, data, cmp, bytes, old, fault_addr);
  case 2: return rt_mem_private_atomic(m, pbase, (uint32_t)a, lane, w, op, data, cmp, bytes, old, fault_addr);
  default: return rt_mem_global_atomic(m, a, op, data, cmp, bytes, old, fault_addr);
  }
}

/* ------------------------------------------------------------------ glue to replay_rt.h (generated code) */
#ifdef RT_SLOT
/* The memory context of the running wave: the launch's ranges, the group's LDS and scratch. The scratch
 * backing store of every group sits at the guest address FLAT_SCRATCH starts at (the capture's scratch
 * base), waves_per_group * RT_WAVE * scratch_per_lane bytes; the apertures are Linux's (hsa-abi.md 3.4). */
RT_FN rt_mem_t rt_mem_of(const rt_ctx_t *c) {
  rt_mem_t m;
  m.ranges = c->l->ranges;
  m.nranges = c->l->nranges;
  m.lds_bytes = c->l->lds_bytes;
  m.lds = c->g->lds;
  m.scratch = c->g->scratch;
  m.scratch_lo = c->l->flat_scratch;
  m.scratch_bytes = m.scratch ? (uint64_t)c->l->waves_per_group * RT_WAVE * c->l->scratch_per_lane : 0;
  m.shared_hi = 1u << 16;
  m.private_hi = 2u << 16;
  return m;
}

/* An rt_mem fault code as the launch's fault code. */
RT_FN uint32_t rt_mem_fault_code(int code) {
  return code == RT_MEM_FAULT_ALIGN ? RT_FAULT_MISALIGNED : RT_FAULT_MEMORY;
}

/* VGPR r of lane src as this thread sees it, from inside an RT_FOR_LANES loop that every thread of the
 * wave runs the same number of times (the GPU reads it with shuffles; the CPU directly). */
#if RT_GPU
RT_FN uint32_t rt_mem_gather(const uint32_t *slots, uint32_t src) {
  uint32_t v0 = __shfl_sync(0xffffffffu, slots[0], (int)(src & 31u));
#if RT_WAVE == 64
  uint32_t v1 = __shfl_sync(0xffffffffu, slots[1], (int)(src & 31u));
  return (src >> 5) ? v1 : v0;
#else
  return v0;
#endif
}
#define RT_MEM_GATHER(r, src) rt_mem_gather(W->v[(r)], (src))
#else
#define RT_MEM_GATHER(r, src) (W->v[(r)][(src)])
#endif

/* The active lanes of an atomic one at a time in lane order, until `rc` (the access's fault code) is set:
 * lanes that hit one address see each other in lane order, as the host model runs them, so the values
 * returned are the same on the GPU (the warp takes turns, __syncwarp between them) as on the CPU. The
 * body must not break out of the loop. */
#if RT_GPU
#define RT_MEM_IN_ORDER(l, rc) \
  for (int l = 0, rt_any_ = 0; l < RT_WAVE && !rt_any_; l++, __syncwarp(), rt_any_ = __any_sync(0xffffffffu, (rc) != 0)) \
    if ((l & 31) != rt_lane0() || !RT_ACTIVE(l)) {} else
#else
#define RT_MEM_IN_ORDER(l, rc) for (int l = 0; l < RT_WAVE && !(rc); l++) if (!RT_ACTIVE(l)) {} else
#endif

/* An LDS atomic performed once for the wave (ds_append / ds_consume); every thread gets its result. */
RT_FN int rt_ds_wave_atomic(const rt_mem_t *m, uint32_t a, int op, uint64_t data, uint64_t *old, uint64_t *fault_addr) {
#if RT_GPU
  int rc = 0;
  uint64_t o = 0, fa = 0;
  if ((threadIdx.x & 31u) == 0) rc = rt_ds_atomic(m, a, op, data, 0, 4, &o, &fa);
  rc = __shfl_sync(0xffffffffu, rc, 0);
  *old = __shfl_sync(0xffffffffu, (unsigned long long)o, 0);
  *fault_addr = __shfl_sync(0xffffffffu, (unsigned long long)fa, 0);
  return rc;
#else
  return rt_ds_atomic(m, a, op, data, 0, 4, old, fault_addr);
#endif
}
#endif
