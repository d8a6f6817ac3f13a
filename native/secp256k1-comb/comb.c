/*
 * Checking a recoverable ECDSA signature against a public key known in
 * advance, in about half the time of recovering it.
 *
 * Recovering a signer (libsecp256k1 `secp256k1_ecdsa_recover`) computes
 * Q = r^-1 (s R - e G) with a variable-base multiplication: ~128 doublings
 * (with the endomorphism) and the additions of two wNAF expansions. When the
 * signer is expected (an account's signer, signing again), the same answer
 * comes from the verification equation R = u1 G + u2 Q (u1 = e/s, u2 = r/s)
 * with fixed-base combs for both G and Q: a table per point of 32 windows of
 * 8 bits (entry j of window i is j 256^i P, 512 KB), so that each product is
 * at most 32 additions and no doublings.
 *
 * `matches` answers 1 exactly when `secp256k1_ecdsa_recover` on the same
 * inputs would succeed and give Q:
 *  - it parses r and s as `secp256k1_ecdsa_recoverable_signature_parse_compact`
 *    does (overflow fails) and refuses zero, as `secp256k1_ecdsa_sig_recover`;
 *  - R's x is r, or r + n when recid & 2 (refused when r >= p - n, as there);
 *  - R = u1 G + u2 Q must have that x and the y parity recid & 1. Then
 *    recovery gives r^-1 (s R - e G) = r^-1 (r Q) = Q. Conversely, when
 *    recovery gives Q, R (a curve point with that x and parity) equals
 *    u1 G + u2 Q. Any other case answers 0, and the caller recovers.
 * It is not constant-time: everything it reads is public.
 *
 * Built against the libsecp256k1 sources of the `secp256k1` package (its
 * own copy, with its own configuration), included whole so that its
 * internal field and group arithmetic is reachable. With GMP (when the
 * machine has libgmp-dev; linked against its shared library) the scalar
 * and field inverses use it, as libsecp256k1 of that era could: ~1 us each
 * instead of ~10 and ~6.
 *
 * From JavaScript (the N-API part below): `buildTable(publicKey, done)`
 * builds a table on the thread pool in memory the add-on owns, and hands
 * `done` an opaque handle (freed by the garbage collector) or null;
 * `matches(digest, rs, recid, table)` accepts only such a handle, so a
 * table is never read before it is complete, nor written after JavaScript
 * could free it. `confirmAsync` runs `matches` on the confirmer's thread
 * (below).
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "secp256k1.c"
#include "KeccakSpongeWidth1600.h"

#define WINDOWS 32
#define ENTRIES 256

/* Entry j of window i is j * 256^i * P; entry 0 is unused. */
typedef struct {
  secp256k1_ge_storage t[WINDOWS][ENTRIES];
} comb_table;

static int comb_build(comb_table *out, const secp256k1_ge *p) {
  const size_t count = WINDOWS * (ENTRIES - 1);
  secp256k1_gej *jac = malloc(sizeof(secp256k1_gej) * count);
  secp256k1_ge *aff = malloc(sizeof(secp256k1_ge) * count);
  if (jac == NULL || aff == NULL) {
    free(jac);
    free(aff);
    return 0;
  }
  secp256k1_ge base = *p;
  for (int i = 0; i < WINDOWS; i++) {
    secp256k1_gej acc;
    secp256k1_gej_set_ge(&acc, &base);
    jac[i * (ENTRIES - 1)] = acc;
    for (int j = 1; j < ENTRIES - 1; j++) {
      secp256k1_gej_add_ge_var(&acc, &acc, &base, NULL);
      jac[i * (ENTRIES - 1) + j] = acc;
    }
    secp256k1_gej_add_ge_var(&acc, &acc, &base, NULL); /* 256 * base: the next window's base */
    secp256k1_ge_set_gej_var(&base, &acc);
  }
  secp256k1_ge_set_all_gej_var(aff, jac, count);
  for (int i = 0; i < WINDOWS; i++) {
    memset(&out->t[i][0], 0, sizeof(secp256k1_ge_storage));
    for (int j = 1; j < ENTRIES; j++) secp256k1_ge_to_storage(&out->t[i][j], &aff[i * (ENTRIES - 1) + j - 1]);
  }
  free(jac);
  free(aff);
  return 1;
}

/*
 * Asks for the table entries that k's digits will read (the bytes of k,
 * big-endian), all at once: they are independent, so their cache misses
 * overlap instead of stalling one addition after another (a server's tables
 * are rarely all in cache).
 */
static void comb_prefetch(const comb_table *table, const unsigned char *bytes) {
  for (int i = 0; i < WINDOWS; i++) {
    const unsigned int digit = bytes[31 - i];
    if (digit == 0) continue;
    const char *entry = (const char *)&table->t[i][digit];
    __builtin_prefetch(entry);
    __builtin_prefetch(entry + sizeof(secp256k1_ge_storage) - 1);
  }
}

/* acc += k * P, P the table's point, k as its 32 bytes, big-endian. */
static void comb_add(secp256k1_gej *acc, const comb_table *table, const unsigned char *bytes) {
  secp256k1_ge entry;
  for (int i = 0; i < WINDOWS; i++) {
    const unsigned int digit = bytes[31 - i];
    if (digit == 0) continue;
    secp256k1_ge_from_storage(&entry, &table->t[i][digit]);
    secp256k1_gej_add_ge_var(acc, acc, &entry, NULL);
  }
}

static comb_table *generator_table = NULL;
static pthread_once_t generator_once = PTHREAD_ONCE_INIT;

static void build_generator_table(void) {
  comb_table *table = malloc(sizeof(comb_table));
  if (table != NULL && comb_build(table, &secp256k1_ge_const_g)) generator_table = table;
  else free(table);
}

static int comb_matches(const comb_table *q_table, const unsigned char *digest32, const unsigned char *rs64, int recid) {
  secp256k1_scalar r, s, e, s_inverse, u1, u2;
  secp256k1_fe r_x;
  secp256k1_gej sum;
  secp256k1_ge point;
  unsigned char u1_bytes[32], u2_bytes[32];
  int overflow = 0;
  if (generator_table == NULL || recid < 0 || recid > 3) return 0;
  secp256k1_scalar_set_b32(&r, rs64, &overflow);
  if (overflow) return 0;
  secp256k1_scalar_set_b32(&s, rs64 + 32, &overflow);
  if (overflow) return 0;
  /* As recovery refuses them; also what keeps s from the inverse below (GMP's aborts on zero). */
  if (secp256k1_scalar_is_zero(&r) || secp256k1_scalar_is_zero(&s)) return 0;
  secp256k1_scalar_set_b32(&e, digest32, NULL);
  /* r did not overflow, so its bytes are the signature's first 32, and below n < p. */
  if (!secp256k1_fe_set_b32(&r_x, rs64)) return 0;
  if (recid & 2) {
    if (secp256k1_fe_cmp_var(&r_x, &secp256k1_ecdsa_const_p_minus_order) >= 0) return 0;
    secp256k1_fe_add(&r_x, &secp256k1_ecdsa_const_order_as_fe);
  }
  secp256k1_fe_normalize_var(&r_x);
  secp256k1_scalar_inverse_var(&s_inverse, &s);
  secp256k1_scalar_mul(&u1, &e, &s_inverse);
  secp256k1_scalar_mul(&u2, &r, &s_inverse);
  secp256k1_scalar_get_b32(u1_bytes, &u1);
  secp256k1_scalar_get_b32(u2_bytes, &u2);
  comb_prefetch(generator_table, u1_bytes);
  comb_prefetch(q_table, u2_bytes);
  secp256k1_gej_set_infinity(&sum);
  comb_add(&sum, generator_table, u1_bytes);
  comb_add(&sum, q_table, u2_bytes);
  if (secp256k1_gej_is_infinity(&sum)) return 0;
  if (!secp256k1_gej_eq_x_var(&r_x, &sum)) return 0;
  secp256k1_ge_set_gej_var(&point, &sum);
  secp256k1_fe_normalize_var(&point.y);
  return secp256k1_fe_is_odd(&point.y) == (recid & 1);
}

/* ---- N-API ---- */

/* Marks the handles this add-on makes, so that `matches` can tell them from any other object. */
static const napi_type_tag TABLE_TAG = {0x7365637032353631ULL, 0x6b31636f6d626c65ULL};

static int bytes_of(napi_env env, napi_value value, unsigned char **data, size_t *length) {
  bool is_typed = false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return 0;
  if (napi_get_typedarray_info(env, value, &type, length, (void **)data, &buffer, &offset) != napi_ok) return 0;
  return type == napi_uint8_array;
}

static napi_value throw_type(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static void free_table(napi_env env, void *data, void *hint) {
  int64_t adjusted;
  (void)hint;
  free(data);
  napi_adjust_external_memory(env, -(int64_t)sizeof(comb_table), &adjusted);
}

typedef struct {
  napi_async_work work;
  napi_ref callback_ref;
  unsigned char public_key[65];
  comb_table *table;
  int ok;
} build_job;

static void build_execute(napi_env env, void *data) {
  build_job *job = data;
  secp256k1_fe x, y;
  secp256k1_ge q;
  (void)env;
  job->ok = 0;
  pthread_once(&generator_once, build_generator_table);
  if (generator_table == NULL || job->public_key[0] != 4) return;
  if (!secp256k1_fe_set_b32(&x, job->public_key + 1) || !secp256k1_fe_set_b32(&y, job->public_key + 33)) return;
  secp256k1_ge_set_xy(&q, &x, &y);
  if (!secp256k1_ge_is_valid_var(&q)) return;
  job->table = malloc(sizeof(comb_table));
  if (job->table == NULL) return;
  job->ok = comb_build(job->table, &q);
}

static void build_complete(napi_env env, napi_status status, void *data) {
  build_job *job = data;
  napi_value callback, global, result;
  int64_t adjusted;
  napi_get_reference_value(env, job->callback_ref, &callback);
  napi_get_global(env, &global);
  if (status == napi_ok && job->ok && napi_create_external(env, job->table, free_table, NULL, &result) == napi_ok) {
    napi_adjust_external_memory(env, (int64_t)sizeof(comb_table), &adjusted);
    /* Untagged, `matches` would refuse it: hand null instead (the handle still frees the table when collected). */
    if (napi_type_tag_object(env, result, &TABLE_TAG) != napi_ok) napi_get_null(env, &result);
  } else {
    free(job->table);
    napi_get_null(env, &result);
  }
  napi_delete_reference(env, job->callback_ref);
  napi_delete_async_work(env, job->work);
  free(job);
  napi_call_function(env, global, callback, 1, &result, NULL);
}

/* buildTable(publicKey: Uint8Array(65, uncompressed), done: (table: handle | null) => void): on the thread pool. */
static napi_value build_table(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], name;
  unsigned char *key;
  size_t key_length;
  napi_valuetype callback_type;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) return throw_type(env, "buildTable(publicKey, done)");
  if (!bytes_of(env, argv[0], &key, &key_length) || key_length != 65) return throw_type(env, "publicKey must be a Uint8Array of 65 bytes");
  napi_typeof(env, argv[1], &callback_type);
  if (callback_type != napi_function) return throw_type(env, "done must be a function");
  build_job *job = calloc(1, sizeof(build_job));
  if (job == NULL) return throw_type(env, "out of memory");
  memcpy(job->public_key, key, 65);
  napi_create_reference(env, argv[1], 1, &job->callback_ref);
  napi_create_string_utf8(env, "secp256k1-comb:buildTable", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, build_execute, build_complete, job, &job->work);
  napi_queue_async_work(env, job->work);
  return NULL;
}

/* The arguments matches() and confirmAsync() share, checked; 0 (with a TypeError thrown) when one is not what it must be. */
typedef struct {
  unsigned char *digest;
  unsigned char *rs;
  int recid;
  const comb_table *table;
} check_args;

static int read_check_args(napi_env env, const napi_value *argv, check_args *out) {
  size_t digest_length, rs_length;
  napi_valuetype recid_type;
  double recid;
  bool tagged = false;
  void *table;
  const char *refusal = NULL;
  if (!bytes_of(env, argv[0], &out->digest, &digest_length) || digest_length != 32) refusal = "digest must be a Uint8Array of 32 bytes";
  else if (!bytes_of(env, argv[1], &out->rs, &rs_length) || rs_length != 64) refusal = "rs must be a Uint8Array of 64 bytes";
  if (refusal != NULL) {
    throw_type(env, refusal);
    return 0;
  }
  napi_typeof(env, argv[2], &recid_type);
  if (recid_type != napi_number || napi_get_value_double(env, argv[2], &recid) != napi_ok ||
      !(recid == 0 || recid == 1 || recid == 2 || recid == 3)) {
    throw_type(env, "recid must be 0, 1, 2 or 3");
    return 0;
  }
  if (napi_check_object_type_tag(env, argv[3], &TABLE_TAG, &tagged) != napi_ok || !tagged ||
      napi_get_value_external(env, argv[3], &table) != napi_ok) {
    throw_type(env, "table must be a table from buildTable");
    return 0;
  }
  out->recid = (int)recid;
  out->table = table;
  return 1;
}

/* matches(digest: Uint8Array(32), rs: Uint8Array(64), recid: 0 | 1 | 2 | 3, table: a handle from buildTable): boolean. */
static napi_value matches(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4], result;
  check_args args;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4) return throw_type(env, "matches(digest, rs, recid, table)");
  if (!read_check_args(env, argv, &args)) return NULL;
  napi_get_boolean(env, comb_matches(args.table, args.digest, args.rs, args.recid), &result);
  return result;
}

/*
 * The confirmer: `matches` off the calling thread. `confirmAsync(digest, rs,
 * recid, table, done)` copies the digest and signature into a job and posts
 * it to the environment's confirmer thread (started by its first call); the
 * thread runs `matches` and hands the job back through a thread-safe
 * function, which calls `done(ok)` on the environment's thread. Jobs run and
 * answer in the order posted. Each job holds references to its table handle
 * (so the table outlives it whatever JavaScript drops meanwhile) and to
 * `done`, released when it answers. While answers are due the thread-safe
 * function holds the event loop open; idle, it does not.
 *
 * At the environment's teardown the thread is stopped and joined (the
 * cleanup hook, registered after the thread-safe function's own, runs
 * first); jobs not yet answered are dropped (nobody is left to answer, and
 * their references go with the environment); then the thread-safe function
 * finalizes and frees the confirmer's state. An exception thrown by `done`
 * is raised as an uncaught exception, as one from `buildTable`'s callback.
 */
typedef struct confirm_job {
  struct confirm_job *next;
  const comb_table *table;
  napi_ref table_ref;
  napi_ref done_ref;
  int recid;
  int ok;
  unsigned char digest[32];
  unsigned char rs[64];
} confirm_job;

typedef struct {
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  confirm_job *head;
  confirm_job *tail;
  int stopping;
  pthread_t thread;
  napi_threadsafe_function answers;
  /* Jobs posted and not yet answered: read and written on the environment's thread only. */
  uint32_t outstanding;
} confirmer;

static void *confirmer_run(void *data) {
  confirmer *c = data;
  for (;;) {
    pthread_mutex_lock(&c->mutex);
    while (c->head == NULL && !c->stopping) pthread_cond_wait(&c->wake, &c->mutex);
    if (c->stopping) {
      confirm_job *job = c->head;
      c->head = c->tail = NULL;
      pthread_mutex_unlock(&c->mutex);
      while (job != NULL) {
        confirm_job *next = job->next;
        free(job);
        job = next;
      }
      break;
    }
    confirm_job *job = c->head;
    c->head = job->next;
    if (c->head == NULL) c->tail = NULL;
    pthread_mutex_unlock(&c->mutex);
    job->ok = comb_matches(job->table, job->digest, job->rs, job->recid);
    if (napi_call_threadsafe_function(c->answers, job, napi_tsfn_blocking) != napi_ok) free(job);
  }
  napi_release_threadsafe_function(c->answers, napi_tsfn_release);
  return NULL;
}

/* On the environment's thread: one job's answer. env is NULL when the environment is going away. */
static void confirmer_answer(napi_env env, napi_value unused, void *context, void *data) {
  confirmer *c = context;
  confirm_job *job = data;
  (void)unused;
  if (env != NULL) {
    napi_value done, argv[1], undefined;
    napi_get_reference_value(env, job->done_ref, &done);
    napi_delete_reference(env, job->done_ref);
    napi_delete_reference(env, job->table_ref);
    napi_get_boolean(env, job->ok != 0, &argv[0]);
    napi_get_undefined(env, &undefined);
    if (--c->outstanding == 0) napi_unref_threadsafe_function(env, c->answers);
    free(job);
    if (napi_call_function(env, undefined, done, 1, argv, NULL) == napi_pending_exception) {
      /*
       * Node drops an exception left pending by a thread-safe function's
       * callback (with a deprecation warning, DEP0168): raise it as an
       * uncaught exception instead, as buildTable's callback would.
       */
      napi_value error;
      if (napi_get_and_clear_last_exception(env, &error) == napi_ok) napi_fatal_exception(env, error);
    }
    return;
  }
  free(job);
}

/* The thread-safe function is gone (environment teardown, after confirmer_teardown joined the thread): nothing reads the state any more. */
static void confirmer_free(napi_env env, void *data, void *hint) {
  confirmer *c = data;
  (void)env;
  (void)hint;
  pthread_mutex_destroy(&c->mutex);
  pthread_cond_destroy(&c->wake);
  free(c);
}

static void confirmer_teardown(void *data) {
  confirmer *c = data;
  pthread_mutex_lock(&c->mutex);
  c->stopping = 1;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(&c->mutex);
  pthread_join(c->thread, NULL);
}

/* The environment's confirmer, started on first use; NULL (with a pending exception) when it cannot start. */
static confirmer *confirmer_of(napi_env env) {
  confirmer *c = NULL;
  napi_value name;
  if (napi_get_instance_data(env, (void **)&c) == napi_ok && c != NULL) return c;
  c = calloc(1, sizeof(confirmer));
  if (c == NULL) {
    throw_type(env, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&c->mutex, NULL);
  pthread_cond_init(&c->wake, NULL);
  napi_create_string_utf8(env, "secp256k1-comb:confirmer", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, c, confirmer_free, c, confirmer_answer, &c->answers) != napi_ok) {
    free(c);
    throw_type(env, "could not create the confirmer's callback");
    return NULL;
  }
  napi_unref_threadsafe_function(env, c->answers);
  if (pthread_create(&c->thread, NULL, confirmer_run, c) != 0) {
    napi_release_threadsafe_function(c->answers, napi_tsfn_abort);
    throw_type(env, "could not start the confirmer's thread");
    return NULL;
  }
  napi_set_instance_data(env, c, NULL, NULL);
  napi_add_env_cleanup_hook(env, confirmer_teardown, c);
  return c;
}

/* confirmAsync(digest: Uint8Array(32), rs: Uint8Array(64), recid: 0-3, table, done: (ok: boolean) => void): done(matches(...)) later. */
static napi_value confirm_async(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_valuetype done_type;
  check_args args;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 5) return throw_type(env, "confirmAsync(digest, rs, recid, table, done)");
  if (!read_check_args(env, argv, &args)) return NULL;
  napi_typeof(env, argv[4], &done_type);
  if (done_type != napi_function) return throw_type(env, "done must be a function");
  confirmer *c = confirmer_of(env);
  if (c == NULL) return NULL;
  confirm_job *job = malloc(sizeof(confirm_job));
  if (job == NULL) return throw_type(env, "out of memory");
  job->next = NULL;
  job->table = args.table;
  job->recid = args.recid;
  job->ok = 0;
  memcpy(job->digest, args.digest, 32);
  memcpy(job->rs, args.rs, 64);
  napi_create_reference(env, argv[3], 1, &job->table_ref);
  napi_create_reference(env, argv[4], 1, &job->done_ref);
  if (c->outstanding++ == 0) napi_ref_threadsafe_function(env, c->answers);
  pthread_mutex_lock(&c->mutex);
  if (c->tail == NULL) c->head = job;
  else c->tail->next = job;
  c->tail = job;
  pthread_cond_signal(&c->wake);
  pthread_mutex_unlock(&c->mutex);
  return NULL;
}

/*
 * keccak256(input: Uint8Array, output: Uint8Array, offset: number): writes
 * the 32-byte keccak256 of all of `input` into output[offset, offset + 32).
 * One call instead of the `keccak` package's three (initialize, absorb,
 * squeeze) and no Buffer made per hash: an EIP-712 digest takes three
 * hashes, each written straight into the buffer the next one reads.
 */
static napi_value keccak256(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  unsigned char *input, *output;
  size_t input_length, output_length;
  napi_valuetype offset_type;
  double offset;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3) return throw_type(env, "keccak256(input, output, offset)");
  if (!bytes_of(env, argv[0], &input, &input_length)) return throw_type(env, "input must be a Uint8Array");
  if (!bytes_of(env, argv[1], &output, &output_length)) return throw_type(env, "output must be a Uint8Array");
  if (napi_typeof(env, argv[2], &offset_type) != napi_ok) return throw_type(env, "offset must be a number");
  /* Bounded before the cast: converting a double out of size_t's range is undefined behaviour. */
  if (offset_type != napi_number || napi_get_value_double(env, argv[2], &offset) != napi_ok || !(offset >= 0) ||
      !(offset <= (double)output_length) || offset != (double)(size_t)offset || output_length < 32 ||
      (size_t)offset > output_length - 32) {
    return throw_type(env, "offset must be an integer with offset + 32 <= output.length");
  }
  /* rate 1088 bits, capacity 512, the original Keccak padding (suffix 0x01): Ethereum's keccak256. */
  if (KeccakWidth1600_Sponge(1088, 512, input, input_length, 0x01, output + (size_t)offset, 32) != 0) return throw_type(env, "keccak failed");
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn, bytes;
  napi_create_function(env, "buildTable", NAPI_AUTO_LENGTH, build_table, NULL, &fn);
  napi_set_named_property(env, exports, "buildTable", fn);
  napi_create_function(env, "matches", NAPI_AUTO_LENGTH, matches, NULL, &fn);
  napi_set_named_property(env, exports, "matches", fn);
  napi_create_function(env, "confirmAsync", NAPI_AUTO_LENGTH, confirm_async, NULL, &fn);
  napi_set_named_property(env, exports, "confirmAsync", fn);
  napi_create_function(env, "keccak256", NAPI_AUTO_LENGTH, keccak256, NULL, &fn);
  napi_set_named_property(env, exports, "keccak256", fn);
  napi_create_int64(env, (int64_t)sizeof(comb_table), &bytes);
  napi_set_named_property(env, exports, "tableBytes", bytes);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
