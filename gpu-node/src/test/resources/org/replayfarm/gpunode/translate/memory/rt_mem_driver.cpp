// Test driver for rt_mem.h (RtMemTest): reads one command per line on stdin, prints one result line each.
// Memory: range 0 = guest 0x100000000, 256 bytes (byte i = i * 7 + 3), range 1 = guest 0x100020000, 64 bytes
// read-only (byte i = 0xA0 + i); LDS 256 bytes (byte i = i ^ 0x5A); scratch 1024 bytes at 0x7F0000000000
// (byte i = i & 0xFF). Commands that change memory print the result; "dump" prints all of it.
#include "rt_mem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

static uint8_t g0[256], g1[64], lds[256], scratch[1024];

static uint64_t rd(const char **s) { char *e; uint64_t v = strtoull(*s, &e, 0); *s = e; return v; }

static void hex(const uint8_t *b, uint32_t n) { for (uint32_t i = 0; i < n; i++) printf("%02x", b[i]); }

static void unhex(const char *h, uint8_t *b, uint32_t n) {
  while (*h == ' ') h++;
  for (uint32_t i = 0; i < n; i++) { unsigned v; sscanf(h + 2 * i, "%2x", &v); b[i] = (uint8_t)v; }
}

int main() {
  for (int i = 0; i < 256; i++) g0[i] = (uint8_t)(i * 7 + 3);
  for (int i = 0; i < 64; i++) g1[i] = (uint8_t)(0xA0 + i);
  for (int i = 0; i < 256; i++) lds[i] = (uint8_t)(i ^ 0x5A);
  for (int i = 0; i < 1024; i++) scratch[i] = (uint8_t)i;
  rt_range_t ranges[2] = {{0x100000000ull, 256, g0, RT_RANGE_READ | RT_RANGE_WRITE, 0},
                          {0x100020000ull, 64, g1, RT_RANGE_READ, 1}};
  rt_mem_t m;
  m.ranges = ranges; m.nranges = 2; m.lds_bytes = 256; m.lds = lds;
  m.scratch = scratch; m.scratch_lo = 0x7F0000000000ull; m.scratch_bytes = 1024;
  m.shared_hi = 1u << 16; m.private_hi = 2u << 16;
  char line[512];
  while (fgets(line, sizeof line, stdin)) {
    char cmd[16];
    int used = 0;
    if (sscanf(line, "%15s%n", cmd, &used) != 1) continue;
    const char *s = line + used;
    uint8_t b[16];
    uint64_t fa = 0, old = 0;
    if (!strcmp(cmd, "aop")) {
      int op = (int)rd(&s); uint64_t o = rd(&s), d = rd(&s), c = rd(&s); int n = (int)rd(&s);
      printf("%016" PRIx64 "\n", rt_atomic_op(op, o, d, c, n));
    } else if (!strcmp(cmd, "swz")) {
      uint32_t lane = (uint32_t)rd(&s), p = (uint32_t)rd(&s);
      printf("%u\n", rt_ds_swizzle_src(lane, p));
    } else if (!strcmp(cmd, "perm")) {
      uint32_t a = (uint32_t)rd(&s), o = (uint32_t)rd(&s), lane = (uint32_t)rd(&s), w = (uint32_t)rd(&s);
      printf("%u\n", rt_ds_permute_lane(a, o, lane, w));
    } else if (!strcmp(cmd, "priv")) {
      uint64_t base = rd(&s); uint32_t off = (uint32_t)rd(&s), lane = (uint32_t)rd(&s), w = (uint32_t)rd(&s);
      printf("%" PRIx64 "\n", rt_mem_private_addr(base, off, lane, w));
    } else if (!strcmp(cmd, "buf")) { // w0 w1 w2 w3 idxen offen v0 v1 instoff soff lane k n
      uint32_t w[4]; for (int i = 0; i < 4; i++) w[i] = (uint32_t)rd(&s);
      int ix = (int)rd(&s), of = (int)rd(&s);
      uint32_t v0 = (uint32_t)rd(&s), v1 = (uint32_t)rd(&s), io = (uint32_t)rd(&s), so = (uint32_t)rd(&s);
      uint32_t lane = (uint32_t)rd(&s), k = (uint32_t)rd(&s), n = (uint32_t)rd(&s);
      rt_vsharp_t v = rt_buf_vsharp(w[0], w[1], w[2], w[3]);
      rt_buf_lane_t l = rt_buf_lane(&v, ix, of, v0, v1, io, so, lane);
      printf("%d %" PRIx64 "\n", rt_buf_in_range(&v, &l, k, n), rt_buf_addr(&v, &l, k));
    } else if (!strcmp(cmd, "gload")) {
      uint64_t a = rd(&s); uint32_t n = (uint32_t)rd(&s);
      int rc = rt_mem_global_load(&m, a, n, b, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else { hex(b, n); printf("\n"); }
    } else if (!strcmp(cmd, "gstore")) {
      uint64_t a = rd(&s); uint32_t n = (uint32_t)rd(&s); unhex(s, b, n);
      int rc = rt_mem_global_store(&m, a, n, b, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else printf("ok\n");
    } else if (!strcmp(cmd, "gatomic")) {
      uint64_t a = rd(&s); int op = (int)rd(&s); uint64_t d = rd(&s), c = rd(&s); int n = (int)rd(&s);
      int rc = rt_mem_global_atomic(&m, a, op, d, c, n, &old, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else printf("%016" PRIx64 "\n", old);
    } else if (!strcmp(cmd, "dsload")) {
      uint32_t a = (uint32_t)rd(&s), n = (uint32_t)rd(&s);
      rt_ds_load(&m, a, n, b); hex(b, n); printf("\n");
    } else if (!strcmp(cmd, "dsstore")) {
      uint32_t a = (uint32_t)rd(&s), n = (uint32_t)rd(&s); unhex(s, b, n);
      rt_ds_store(&m, a, n, b); printf("ok\n");
    } else if (!strcmp(cmd, "dsatomic")) {
      uint32_t a = (uint32_t)rd(&s); int op = (int)rd(&s); uint64_t d = rd(&s), c = rd(&s); int n = (int)rd(&s);
      int rc = rt_ds_atomic(&m, a, op, d, c, n, &old, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else printf("%016" PRIx64 "\n", old);
    } else if (!strcmp(cmd, "pload")) { // base off n lane w
      uint64_t base = rd(&s); uint32_t off = (uint32_t)rd(&s), n = (uint32_t)rd(&s), lane = (uint32_t)rd(&s), w = (uint32_t)rd(&s);
      int rc = rt_mem_private_load(&m, base, off, n, lane, w, b, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else { hex(b, n); printf("\n"); }
    } else if (!strcmp(cmd, "pstore")) {
      uint64_t base = rd(&s); uint32_t off = (uint32_t)rd(&s), n = (uint32_t)rd(&s), lane = (uint32_t)rd(&s), w = (uint32_t)rd(&s);
      unhex(s, b, n);
      int rc = rt_mem_private_store(&m, base, off, n, lane, w, b, &fa);
      if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else printf("ok\n");
    } else if (!strcmp(cmd, "bload") || !strcmp(cmd, "bstore")) { // w0..w3 idxen offen v0 v1 instoff soff lane n [hex]
      uint32_t w[4]; for (int i = 0; i < 4; i++) w[i] = (uint32_t)rd(&s);
      int ix = (int)rd(&s), of = (int)rd(&s);
      uint32_t v0 = (uint32_t)rd(&s), v1 = (uint32_t)rd(&s), io = (uint32_t)rd(&s), so = (uint32_t)rd(&s);
      uint32_t lane = (uint32_t)rd(&s), n = (uint32_t)rd(&s);
      rt_vsharp_t v = rt_buf_vsharp(w[0], w[1], w[2], w[3]);
      rt_buf_lane_t l = rt_buf_lane(&v, ix, of, v0, v1, io, so, lane);
      int rc;
      if (cmd[1] == 'l') {
        rc = rt_buf_load(&m, &v, &l, n, b, &fa);
        if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else { hex(b, n); printf("\n"); }
      } else {
        unhex(s, b, n);
        rc = rt_buf_store(&m, &v, &l, n, b, &fa);
        if (rc) printf("fault %d %" PRIx64 "\n", rc, fa); else printf("ok\n");
      }
    } else if (!strcmp(cmd, "dump")) {
      hex(g0, 256); printf(" "); hex(g1, 64); printf(" "); hex(lds, 256); printf(" "); hex(scratch, 1024); printf("\n");
    } else {
      printf("unknown %s\n", cmd);
    }
    fflush(stdout);
  }
  return 0;
}
