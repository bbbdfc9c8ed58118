/*===- comm_test.c - the collectives of mpt/comm.h, from C ----------------===*\
|*                                                                            *|
|* Plain C (compiled as C11), so the header stays C. Run by test/Comm under   *|
|* mpiexec -n 2 (or alone, as the only rank); every rank checks its own       *|
|* results (a failure makes it, and so mpiexec, exit non-zero) and rank 0     *|
|* prints what FileCheck reads. Inputs depend on the rank and the element,    *|
|* so a rank's data missing, doubled or misplaced shows.                      *|
|* Sums are checked against the exact sum rounded once (in double,            *|
|* half_reference.h), which is what two ranks' sum must be; with more ranks   *|
|* the result depends on MPI's order of pairs, so `reduce` wants at most 2.   *|
|* Usage: mpt-comm-test CASE [ARGUMENT], CASE one of                          *|
|*   reduce, overflow, nonfinite, check-same, single, errors: checks, exit 0  *|
|*     when all pass;                                                         *|
|*   hang: rank 1 stops itself; rank 0's all-reduce must fail after the       *|
|*     timeout, then it exits 1;                                              *|
|*   die kill|exit: rank 1 kills itself or exits 3 between all-reduces, which *|
|*     rank 0 keeps making until the launcher ends it;                        *|
|*   nccl-missing: a communicator of the CUDA device fails to start;          *|
|*   cuda: all-reduces of device memory at one rank, on NCCL;                 *|
|*   cuda-lost-peer SECONDS: the same, where NCCL's peer never comes (the     *|
|*     recording CUDA driver's NCCL): waiting for the stream must fail after  *|
|*     the timeout (SECONDS) or at NCCL's error, and later all-reduces at     *|
|*     once.                                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mpt/comm.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect_status.h"
#include "half_reference.h"

#ifdef MPT_COMM_TEST_CUDA
#include "comm_test_cuda.h"
#endif

/* The normal cases' bound on a wait: long enough for a slow CI machine, short
   enough that a broken collective fails the test instead of hanging it. */
static const double kTestTimeout = 30.0;

static mpt_comm_t initComm(mpt_device_t device, double timeout) {
  mpt_comm_options_t options;
  mpt_comm_options_init(&options);
  options.device = device;
  options.timeout_seconds = timeout;
  mpt_comm_t comm = NULL;
  mpt_status_t status = mpt_comm_init(&options, &comm);
  if (status) {
    printf("FAIL: %s\n", mpt_status_message(status));
    mpt_status_free(status);
    exit(1);
  }
  return comm;
}

/*===-- Inputs and expected values ----------------------------------------===*/

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Writes rank `rank`'s element `i` of `dtype` at `element`: random signs,
   mantissas and exponents over a range whose sums of two stay finite (f16
   and bf16 with subnormals), integers whose sums of two fit. */
static void makeInput(mpt_dtype_t dtype, int rank, int64_t i, void *element) {
  uint64_t h = mix((uint64_t)rank << 48 ^ (uint64_t)dtype << 40 ^ (uint64_t)i);
  uint16_t sign16 = (uint16_t)(h & 0x8000);
  switch (dtype) {
  case MPT_DTYPE_F32: {
    uint32_t bits = (uint32_t)(h & 0x80000000u) |
                    (uint32_t)((h >> 32) % 40 + 107) << 23 |
                    (uint32_t)(h >> 8 & 0x7fffff);
    memcpy(element, &bits, 4);
    return;
  }
  case MPT_DTYPE_F16: {
    uint16_t bits =
        sign16 | (uint16_t)((h >> 16) % 29 << 10) | (uint16_t)(h >> 32 & 0x3ff);
    memcpy(element, &bits, 2);
    return;
  }
  case MPT_DTYPE_BF16: {
    uint64_t binade = (h >> 16) % 64; /* 0: a subnormal */
    uint16_t bits = sign16 | (uint16_t)((binade ? binade + 96 : 0) << 7) |
                    (uint16_t)(h >> 32 & 0x7f);
    memcpy(element, &bits, 2);
    return;
  }
  case MPT_DTYPE_I32: {
    int32_t value = (int32_t)(h % (1u << 30)) - (1 << 29);
    memcpy(element, &value, 4);
    return;
  }
  case MPT_DTYPE_I64: {
    int64_t value = (int64_t)(h >> 2) - (INT64_C(1) << 61);
    memcpy(element, &value, 8);
    return;
  }
  }
}

/* Element `i` of the float `buffer`, exactly. */
static double floatAt(mpt_dtype_t dtype, const void *buffer, int64_t i) {
  if (dtype == MPT_DTYPE_F32) {
    float value;
    memcpy(&value, (const char *)buffer + 4 * i, 4);
    return value;
  }
  uint16_t bits;
  memcpy(&bits, (const char *)buffer + 2 * i, 2);
  return decodeHalf(bits, dtype == MPT_DTYPE_F16 ? kF16Format : kBF16Format);
}

static int64_t integerAt(mpt_dtype_t dtype, const void *buffer, int64_t i) {
  if (dtype == MPT_DTYPE_I32) {
    int32_t value;
    memcpy(&value, (const char *)buffer + 4 * i, 4);
    return value;
  }
  int64_t value;
  memcpy(&value, (const char *)buffer + 8 * i, 8);
  return value;
}

static int isFloat(mpt_dtype_t dtype) {
  return dtype == MPT_DTYPE_F32 || dtype == MPT_DTYPE_F16 ||
         dtype == MPT_DTYPE_BF16;
}

/* A float rounded once, to nearest even, to `dtype`. */
static double roundTo(mpt_dtype_t dtype, double value) {
  if (dtype == MPT_DTYPE_F32)
    return (float)value;
  return roundHalf(value, dtype == MPT_DTYPE_F16 ? kF16Format : kBF16Format);
}

/* NaN-propagating max, as MPT_REDUCE_MAX. */
static double maxOf(double a, double b) {
  if (isnan(a) || isnan(b))
    return NAN;
  return a > b ? a : b;
}

/* Equal values, or both NaN. */
static int sameValue(double a, double b) {
  return a == b || (isnan(a) && isnan(b));
}

static const char *opName(mpt_reduce_op_t op) {
  return op == MPT_REDUCE_SUM ? "sum" : "max";
}

/*===-- Cases -------------------------------------------------------------===*/

/* All-reduces `count` elements of every rank's input and compares each
   element with the sum or max of all ranks' inputs, computed here; then
   every rank must hold the same bits. */
static void checkReduce(mpt_comm_t comm, mpt_dtype_t dtype, mpt_reduce_op_t op,
                        int64_t count) {
  int rank = mpt_comm_rank(comm), size = mpt_comm_size(comm);
  size_t elementBytes = mpt_dtype_size(dtype);
  char *buffer = malloc(elementBytes * (size_t)count);
  char other[8];
  for (int64_t i = 0; i < count; ++i)
    makeInput(dtype, rank, i, buffer + elementBytes * i);
  EXPECT_OK(
      mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, buffer, count, dtype, op));
  int64_t mismatches = 0;
  for (int64_t i = 0; i < count; ++i) {
    int ok;
    if (isFloat(dtype)) {
      double expected = op == MPT_REDUCE_SUM ? 0.0 : -INFINITY;
      for (int r = 0; r < size; ++r) {
        makeInput(dtype, r, i, other);
        double value = floatAt(dtype, other, 0);
        expected =
            op == MPT_REDUCE_SUM ? expected + value : maxOf(expected, value);
      }
      expected = roundTo(dtype, expected);
      ok = sameValue(floatAt(dtype, buffer, i), expected);
    } else {
      int64_t expected = op == MPT_REDUCE_SUM ? 0 : INT64_MIN;
      for (int r = 0; r < size; ++r) {
        makeInput(dtype, r, i, other);
        int64_t value = integerAt(dtype, other, 0);
        expected = op == MPT_REDUCE_SUM ? expected + value
                   : value > expected   ? value
                                        : expected;
      }
      ok = integerAt(dtype, buffer, i) == expected;
    }
    if (!ok && ++mismatches <= 3)
      printf("FAIL rank %d: %s %s element %lld: got %.17g\n", rank,
             mpt_dtype_name(dtype), opName(op), (long long)i,
             isFloat(dtype) ? floatAt(dtype, buffer, i)
                            : (double)integerAt(dtype, buffer, i));
  }
  EXPECT(mismatches == 0);
  EXPECT_OK(mpt_comm_check_same(comm, buffer, elementBytes * (size_t)count,
                                "the reduced buffer"));
  if (rank == 0)
    printf("%s %s of %lld elements over %d ranks: %lld mismatches\n",
           mpt_dtype_name(dtype), opName(op), (long long)count, size,
           (long long)mismatches);
  free(buffer);
}

static void reduce(mpt_comm_t comm) {
  if (mpt_comm_size(comm) > 2) {
    printf("FAIL: `reduce` checks exact sums of at most 2 ranks, not %d\n",
           mpt_comm_size(comm));
    ++failures;
    return;
  }
  static const mpt_dtype_t kDtypes[] = {MPT_DTYPE_F32, MPT_DTYPE_F16,
                                        MPT_DTYPE_BF16, MPT_DTYPE_I32,
                                        MPT_DTYPE_I64};
  /* 4099 elements and 2^20 + 3, past the size from which MPICH changes its
     algorithm, both not a multiple of any chunk size. */
  static const int64_t kCounts[] = {4099, (1 << 20) + 3};
  for (size_t d = 0; d < sizeof kDtypes / sizeof *kDtypes; ++d)
    for (size_t c = 0; c < 2; ++c) {
      checkReduce(comm, kDtypes[d], MPT_REDUCE_SUM, kCounts[c]);
      checkReduce(comm, kDtypes[d], MPT_REDUCE_MAX, kCounts[c]);
    }
}

/* Writes `value` rounded to the float `dtype` at element `i`. */
static void storeFloat(mpt_dtype_t dtype, void *buffer, int64_t i,
                       double value) {
  if (dtype == MPT_DTYPE_F32) {
    float single = (float)value;
    memcpy((char *)buffer + 4 * i, &single, 4);
    return;
  }
  /* The 16-bit pattern of that value (NaN: any NaN). */
  HalfFormat format = dtype == MPT_DTYPE_F16 ? kF16Format : kBF16Format;
  double rounded = roundHalf(value, format);
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    double candidate = decodeHalf((uint16_t)bits, format);
    if (sameValue(candidate, rounded) &&
        signbit(candidate) == signbit(rounded)) {
      uint16_t pattern = (uint16_t)bits;
      memcpy((char *)buffer + 2 * i, &pattern, 2);
      return;
    }
  }
}

/* A sum of finite values that leaves the format is infinite, not clamped or
   wrapped: 60000 on every rank in f16 (whose largest value is 65504). */
static void overflow(mpt_comm_t comm) {
  static const struct {
    mpt_dtype_t dtype;
    double value;
  } kCases[] = {{MPT_DTYPE_F16, 60000.0},
                {MPT_DTYPE_F16, -60000.0},
                {MPT_DTYPE_BF16, 3e38},
                {MPT_DTYPE_F32, 3e38}};
  int size = mpt_comm_size(comm);
  for (size_t c = 0; c < sizeof kCases / sizeof *kCases; ++c) {
    mpt_dtype_t dtype = kCases[c].dtype;
    char element[4];
    storeFloat(dtype, element, 0, kCases[c].value);
    double input = floatAt(dtype, element, 0);
    EXPECT_OK(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, element, 1, dtype,
                                  MPT_REDUCE_SUM));
    double got = floatAt(dtype, element, 0);
    EXPECT(sameValue(got, roundTo(dtype, input * size)));
    if (mpt_comm_rank(comm) == 0)
      printf("%s: %g summed over %d ranks: %g\n", mpt_dtype_name(dtype), input,
             size, got);
  }
}

/* NaN and infinities on some ranks reach every rank: the finite check after
   the reduction must see them. Element 0: NaN on the last rank, 1 elsewhere;
   1: +inf on rank 0, -inf on the others; 2: +inf on the last rank, 2
   elsewhere; 3: -inf on rank 0, 5 elsewhere. */
static void nonfinite(mpt_comm_t comm) {
  int rank = mpt_comm_rank(comm), size = mpt_comm_size(comm), last = size - 1;
  static const mpt_dtype_t kDtypes[] = {MPT_DTYPE_F32, MPT_DTYPE_F16,
                                        MPT_DTYPE_BF16};
  for (size_t d = 0; d < 3; ++d)
    for (mpt_reduce_op_t op = MPT_REDUCE_SUM; op <= MPT_REDUCE_MAX; ++op) {
      mpt_dtype_t dtype = kDtypes[d];
      double inputs[4], expected[4];
      for (int i = 0; i < 4; ++i)
        expected[i] = op == MPT_REDUCE_SUM ? 0.0 : -INFINITY;
      for (int r = 0; r < size; ++r) {
        double values[4] = {
            r == last ? NAN : 1.0, r == 0 ? INFINITY : -INFINITY,
            r == last ? INFINITY : 2.0, r == 0 ? -INFINITY : 5.0};
        for (int i = 0; i < 4; ++i) {
          expected[i] = op == MPT_REDUCE_SUM ? expected[i] + values[i]
                                             : maxOf(expected[i], values[i]);
          if (r == rank)
            inputs[i] = values[i];
        }
      }
      char buffer[16];
      for (int i = 0; i < 4; ++i)
        storeFloat(dtype, buffer, i, inputs[i]);
      EXPECT_OK(
          mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, buffer, 4, dtype, op));
      for (int i = 0; i < 4; ++i)
        EXPECT(sameValue(floatAt(dtype, buffer, i), expected[i]));
      /* The same bits everywhere, NaNs included. */
      EXPECT_OK(mpt_comm_check_same(comm, buffer, 4 * mpt_dtype_size(dtype),
                                    "the reduced buffer"));
      if (rank == 0)
        printf("%s %s: %g %g %g %g\n", mpt_dtype_name(dtype), opName(op),
               floatAt(dtype, buffer, 0), floatAt(dtype, buffer, 1),
               floatAt(dtype, buffer, 2), floatAt(dtype, buffer, 3));
    }
}

/* The same bytes pass; rank 1's different bytes fail on every rank, and rank
   0 prints the error. */
static void checkSame(mpt_comm_t comm) {
  int rank = mpt_comm_rank(comm);
  const char *signature = "{\"format\": \"mpt-signature-2\"}";
  EXPECT_OK(mpt_comm_check_same(comm, signature, strlen(signature),
                                "the program's signature"));
  EXPECT_OK(mpt_comm_check_same(comm, signature, 0, "nothing"));
  const char *mine = rank == 1 ? "{\"format\": \"other\"}" : signature;
  mpt_status_t status =
      mpt_comm_check_same(comm, mine, strlen(mine), "the program's signature");
  if (rank == 0)
    EXPECT_ERROR(status, MPT_STATUS_FAILED_PRECONDITION,
                 "the program's signature differs between the ranks");
  else {
    EXPECT(mpt_status_code(status) == MPT_STATUS_FAILED_PRECONDITION);
    mpt_status_free(status);
  }
}

/* One rank, without a launcher: collectives leave buffers as they are. */
static void single(mpt_comm_t comm) {
  printf("rank %d of %d, transport %s\n", mpt_comm_rank(comm),
         mpt_comm_size(comm), mpt_comm_transport(comm));
  char buffer[2 * 4099], copy[sizeof buffer];
  for (int64_t i = 0; i < 4099; ++i)
    makeInput(MPT_DTYPE_F16, 0, i, buffer + 2 * i);
  memcpy(copy, buffer, sizeof buffer);
  EXPECT_OK(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, buffer, 4099,
                                MPT_DTYPE_F16, MPT_REDUCE_SUM));
  EXPECT_OK(mpt_comm_broadcast(comm, buffer, sizeof buffer, 0));
  EXPECT_OK(mpt_comm_barrier(comm));
  EXPECT_OK(mpt_comm_check_same(comm, buffer, sizeof buffer, "the buffer"));
  EXPECT(memcmp(buffer, copy, sizeof buffer) == 0);
}

/* Arguments are checked on every rank before any communication. */
static void errors(mpt_comm_t comm) {
  float values[4] = {1, 2, 3, 4};
  EXPECT_ERROR(mpt_comm_all_reduce(NULL, MPT_DEVICE_CPU, values, 4,
                                   MPT_DTYPE_F32, MPT_REDUCE_SUM),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_all_reduce: comm is NULL");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, NULL, 4, MPT_DTYPE_F32,
                                   MPT_REDUCE_SUM),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_all_reduce: buffer is NULL");
  EXPECT_ERROR(
      mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 4, 42, MPT_REDUCE_SUM),
      MPT_STATUS_INVALID_ARGUMENT,
      "mpt_comm_all_reduce: unknown dtype 42: all-reduces take F32, "
      "F16, BF16, I32 or I64");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 4,
                                   MPT_DTYPE_BOOL, MPT_REDUCE_MAX),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_all_reduce: dtype BOOL: all-reduces take");
  EXPECT_ERROR(
      mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 4, MPT_DTYPE_F32, 7),
      MPT_STATUS_INVALID_ARGUMENT,
      "mpt_comm_all_reduce: unknown reduce op 7 (MPT_REDUCE_SUM or "
      "MPT_REDUCE_MAX)");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, -1,
                                   MPT_DTYPE_F32, MPT_REDUCE_SUM),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_all_reduce: count must lie in [0, 2^31 - 1], got -1");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values,
                                   INT64_C(1) << 31, MPT_DTYPE_F32,
                                   MPT_REDUCE_SUM),
               MPT_STATUS_INVALID_ARGUMENT, "got 2147483648");
  EXPECT_ERROR(
      mpt_comm_all_reduce(comm, 5, values, 4, MPT_DTYPE_F32, MPT_REDUCE_SUM),
      MPT_STATUS_INVALID_ARGUMENT,
      "mpt_comm_all_reduce: unknown memory 5 (MPT_DEVICE_CPU or "
      "MPT_DEVICE_CUDA)");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CUDA, values, 4,
                                   MPT_DTYPE_F32, MPT_REDUCE_SUM),
               MPT_STATUS_FAILED_PRECONDITION,
               "mpt_comm_all_reduce: CUDA memory needs a communicator "
               "initialized for the CUDA device");
  EXPECT_ERROR(mpt_comm_broadcast(comm, values, sizeof values, -1),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_broadcast: root -1 is not a rank");
  EXPECT_ERROR(
      mpt_comm_broadcast(comm, values, sizeof values, mpt_comm_size(comm)),
      MPT_STATUS_INVALID_ARGUMENT, "is not a rank: there are");
  EXPECT_ERROR(mpt_comm_broadcast(comm, NULL, 4, 0),
               MPT_STATUS_INVALID_ARGUMENT, "mpt_comm_broadcast: data is NULL");
  EXPECT_ERROR(mpt_comm_barrier(NULL), MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_barrier: comm is NULL");
  EXPECT_ERROR(mpt_comm_check_same(comm, values, sizeof values, NULL),
               MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_check_same: what is NULL");

  mpt_comm_options_t options;
  mpt_comm_options_init(&options);
  EXPECT(options.device == MPT_DEVICE_CPU && options.timeout_seconds == 600);
  mpt_comm_options_init(NULL);
  mpt_comm_t other = NULL;
  options.timeout_seconds = 0;
  EXPECT_ERROR(mpt_comm_init(&options, &other), MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_init: timeout_seconds must be finite and positive, "
               "got 0");
  options.timeout_seconds = NAN;
  EXPECT_ERROR(mpt_comm_init(&options, &other), MPT_STATUS_INVALID_ARGUMENT,
               "timeout_seconds must be finite and positive, got nan");
  mpt_comm_options_init(&options);
  options.device = 3;
  EXPECT_ERROR(mpt_comm_init(&options, &other), MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_init: unknown device 3");
  EXPECT_ERROR(mpt_comm_init(&options, NULL), MPT_STATUS_INVALID_ARGUMENT,
               "mpt_comm_init: comm is NULL");
  EXPECT(other == NULL);
  EXPECT(mpt_comm_rank(NULL) == 0 && mpt_comm_size(NULL) == 0);
  EXPECT(strcmp(mpt_comm_transport(NULL), "") == 0);
  mpt_comm_free(NULL);
}

/* Rank 1 stops (as a deadlocked or hung rank would); rank 0's all-reduce
   gives up after the communicator's timeout. Rank 0 then exits 1, and the
   launcher ends rank 1. */
static int hang(mpt_comm_t comm) {
  if (mpt_comm_rank(comm) == 1)
    raise(SIGSTOP);
  float values[4] = {1, 2, 3, 4};
  mpt_status_t status = mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 4,
                                            MPT_DTYPE_F32, MPT_REDUCE_SUM);
  if (mpt_comm_rank(comm) == 0)
    EXPECT_ERROR(status, MPT_STATUS_UNAVAILABLE,
                 "mpt_comm_all_reduce: all-reduce (sum) of 4 F32 elements: "
                 "no answer from the other ranks within");
  /* A later collective is refused at once. */
  EXPECT_ERROR(mpt_comm_barrier(comm), MPT_STATUS_FAILED_PRECONDITION,
               "mpt_comm_barrier: barrier: an earlier collective of this "
               "communicator failed");
  printf("rank 0 exits 1 after %d checks, %d failed\n", checks, failures);
  return 1;
}

/* Rank 1 dies (SIGKILL, or exit(3) as after an error) after 3 all-reduces;
   rank 0 keeps reducing until the launcher ends it. */
static int die(mpt_comm_t comm, const char *how) {
  int rank = mpt_comm_rank(comm);
  for (int i = 0; i < 100000; ++i) {
    if (rank == 1 && i == 3) {
      fflush(stdout);
      if (strcmp(how, "kill") == 0)
        raise(SIGKILL);
      exit(3);
    }
    float values[256] = {0};
    mpt_status_t status = mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 256,
                                              MPT_DTYPE_F32, MPT_REDUCE_SUM);
    if (status) {
      printf("rank %d: error: %s\n", rank, mpt_status_message(status));
      mpt_status_free(status);
      return 1;
    }
    if (i == 2)
      printf("rank %d: 3 all-reduces done\n", rank);
  }
  printf("FAIL rank %d: 100000 all-reduces with a dead rank\n", rank);
  return 1;
}

/* Without libnccl.so.2 every rank's communicator of the CUDA device fails to
   start, saying why. */
static void ncclMissing(void) {
  mpt_comm_options_t options;
  mpt_comm_options_init(&options);
  options.device = MPT_DEVICE_CUDA;
  options.timeout_seconds = kTestTimeout;
  mpt_comm_t comm = NULL;
  EXPECT_ERROR(mpt_comm_init(&options, &comm), MPT_STATUS_FAILED_PRECONDITION,
               "mpt_comm_init: ");
  EXPECT(comm == NULL);
}

#ifdef MPT_COMM_TEST_CUDA
/* At one rank (NCCL refuses two ranks on one GPU), device memory all-reduced
   on the runtime's stream comes back as it went, and host memory still goes
   over the host transport. */
static void cuda(void) {
  mpt_comm_t comm = initComm(MPT_DEVICE_CUDA, kTestTimeout);
  EXPECT(mpt_comm_size(comm) == 1);
  static const mpt_dtype_t kDtypes[] = {MPT_DTYPE_F32, MPT_DTYPE_F16,
                                        MPT_DTYPE_BF16, MPT_DTYPE_I32,
                                        MPT_DTYPE_I64};
  enum { kCount = 4099 };
  for (size_t d = 0; d < 5; ++d)
    for (mpt_reduce_op_t op = MPT_REDUCE_SUM; op <= MPT_REDUCE_MAX; ++op) {
      mpt_dtype_t dtype = kDtypes[d];
      size_t bytes = kCount * mpt_dtype_size(dtype);
      char *host = malloc(bytes), *back = malloc(bytes);
      for (int64_t i = 0; i < kCount; ++i)
        makeInput(dtype, 0, i, host + i * mpt_dtype_size(dtype));
      void *device = deviceCopyOf(host, bytes);
      EXPECT(device != NULL);
      EXPECT_OK(mpt_comm_all_reduce(comm, MPT_DEVICE_CUDA, device, kCount,
                                    dtype, op));
      EXPECT(copyFromDevice(back, device, bytes) &&
             memcmp(host, back, bytes) == 0);
      printf("%s %s on the GPU: %s\n", mpt_dtype_name(dtype), opName(op),
             memcmp(host, back, bytes) == 0 ? "unchanged" : "CHANGED");
      freeDeviceCopy(device);
      free(host);
      free(back);
    }
  float values[2] = {1, 2};
  EXPECT_OK(mpt_comm_all_reduce(comm, MPT_DEVICE_CPU, values, 2, MPT_DTYPE_F32,
                                MPT_REDUCE_SUM));
  printf("rank 0: %d checks, %d failed\n", checks, failures);
  mpt_comm_free(comm);
}

/* NCCL's peer never comes (the recording CUDA driver's NCCL with
   MPT_RECORDING_NCCL_PEER set): the all-reduce is enqueued, waiting for the
   stream fails after the communicator's timeout or at NCCL's error, which
   aborts the communicator, and a later all-reduce is refused. */
static void cudaLostPeer(double timeout) {
  mpt_comm_t comm = initComm(MPT_DEVICE_CUDA, timeout);
  float values[4] = {1, 2, 3, 4};
  void *device = deviceCopyOf(values, sizeof values);
  EXPECT(device != NULL);
  EXPECT_OK(mpt_comm_all_reduce(comm, MPT_DEVICE_CUDA, device, 4, MPT_DTYPE_F32,
                                MPT_REDUCE_SUM));
  const char *error = streamWaitError();
  EXPECT(error != NULL);
  printf("error: %s\n", error ? error : "none");
  EXPECT_ERROR(mpt_comm_all_reduce(comm, MPT_DEVICE_CUDA, device, 4,
                                   MPT_DTYPE_F32, MPT_REDUCE_SUM),
               MPT_STATUS_FAILED_PRECONDITION,
               "mpt_comm_all_reduce: all-reduce (sum) of 4 F32 elements: the "
               "communicator was aborted: ");
  /* The aborted stream drained: the device memory can go. */
  EXPECT(streamWaitError() == NULL);
  freeDeviceCopy(device);
  printf("rank 0: %d checks, %d failed\n", checks, failures);
  mpt_comm_free(comm);
}
#endif

/* The cases that run on one communicator of the CPU device. */
static const struct {
  const char *name;
  void (*run)(mpt_comm_t comm);
} kCases[] = {{"reduce", reduce},       {"overflow", overflow},
              {"nonfinite", nonfinite}, {"check-same", checkSame},
              {"single", single},       {"errors", errors}};

int main(int argc, char **argv) {
  /* Each rank's lines whole, in order, when the launcher merges them. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *name = argc > 1 ? argv[1] : "";
  if (strcmp(name, "nccl-missing") == 0) {
    ncclMissing();
    return failures != 0;
  }
#ifdef MPT_COMM_TEST_CUDA
  if (strcmp(name, "cuda") == 0) {
    cuda();
    return failures != 0;
  }
  if (strcmp(name, "cuda-lost-peer") == 0 && argc > 2) {
    cudaLostPeer(atof(argv[2]));
    return failures != 0;
  }
#endif
  /* Neither frees its communicator: its ranks no longer agree. */
  if (strcmp(name, "hang") == 0)
    return hang(initComm(MPT_DEVICE_CPU, 2.0));
  if (strcmp(name, "die") == 0 && argc > 2)
    return die(initComm(MPT_DEVICE_CPU, 600.0), argv[2]);
  for (size_t c = 0; c < sizeof kCases / sizeof *kCases; ++c) {
    if (strcmp(name, kCases[c].name) != 0)
      continue;
    mpt_comm_t comm = initComm(MPT_DEVICE_CPU, kTestTimeout);
    kCases[c].run(comm);
    printf("rank %d: %d checks, %d failed\n", mpt_comm_rank(comm), checks,
           failures);
    mpt_comm_free(comm);
    return failures != 0;
  }
  printf("usage: mpt-comm-test reduce|overflow|nonfinite|check-same|single|"
         "errors|hang|die kill|die exit|nccl-missing|cuda|cuda-lost-peer "
         "SECONDS\n");
  return 2;
}
