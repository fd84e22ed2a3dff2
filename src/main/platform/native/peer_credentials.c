/*
 * Kubecred's few needs of the kernel that Node has no API for: the process at the other end
 * of a Unix socket, as the kernel recorded it at connect() (approval prompts and the audit
 * trail name the program that asked; a pid a client writes in its body is only a claim), and
 * turning off core dumps and ptrace for the broker. Node-API only, so one build serves every
 * Node and Electron version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __APPLE__
#include <sys/un.h>
#include <sys/ucred.h>
#endif
#include <node_api.h>

static napi_value throw_errno(napi_env env, int err) {
  napi_throw_error(env, "EPEERCRED", strerror(err));
  return NULL;
}

static napi_value set_int(napi_env env, napi_value object, const char *name, int64_t value) {
  napi_value number;
  napi_create_int64(env, value, &number);
  napi_set_named_property(env, object, name, number);
  return object;
}

/* peerCredentials(fd) -> { pid, uid } */
static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "peerCredentials takes a socket descriptor");
    return NULL;
  }
  napi_create_object(env, &result);
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return throw_errno(env, errno);
  set_int(env, result, "pid", cred.pid);
  set_int(env, result, "uid", cred.uid);
#elif defined(__APPLE__)
  pid_t pid;
  socklen_t len = sizeof pid;
  uid_t uid;
  gid_t gid;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) != 0) return throw_errno(env, errno);
  if (getpeereid(fd, &uid, &gid) != 0) return throw_errno(env, errno);
  set_int(env, result, "pid", pid);
  set_int(env, result, "uid", uid);
#else
  return throw_errno(env, ENOSYS);
#endif
  return result;
}

/*
 * forbidDumps() -> true where it took effect. The broker holds secrets in its heap: no core
 * file, and no ptrace or /proc/<pid>/mem reading by other processes of the same user.
 */
static napi_value forbid_dumps(napi_env env, napi_callback_info info) {
  napi_value result;
  (void)info;
#if defined(__linux__)
  napi_get_boolean(env, prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0, &result);
#else
  napi_get_boolean(env, 0, &result);
#endif
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "peerCredentials", NAPI_AUTO_LENGTH, peer_credentials, NULL, &fn);
  napi_set_named_property(env, exports, "peerCredentials", fn);
  napi_create_function(env, "forbidDumps", NAPI_AUTO_LENGTH, forbid_dumps, NULL, &fn);
  napi_set_named_property(env, exports, "forbidDumps", fn);
  return exports;
}
