/*
 * Windows: which process is at the other end of a named pipe, as the kernel knows it. Node
 * keeps the handle of a pipe it accepted to itself, so the broker names a caller through a
 * pipe of its own: a one-time pipe this addon creates (first instance, this user only, local
 * clients only) and the caller connects to; GetNamedPipeClientProcessId on it names the
 * caller's real process, as SO_PEERCRED does on Linux. A pid written in a request is a claim.
 *
 * Built with mingw-w64 from Linux as well as on Windows. Node-API functions are looked up in the
 * host process (node.exe or the Electron app's binary, whichever loaded this) at load time, so
 * no import library ties the addon to one executable's name.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <tlhelp32.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <js_native_api_types.h>
#include <node_api_types.h>

#ifndef NAPI_AUTO_LENGTH
#define NAPI_AUTO_LENGTH SIZE_MAX
#endif

typedef napi_status (*get_cb_info_fn)(napi_env, napi_callback_info, size_t *, napi_value *, napi_value *, void **);
typedef napi_status (*get_value_int32_fn)(napi_env, napi_value, int32_t *);
typedef napi_status (*get_value_string_utf8_fn)(napi_env, napi_value, char *, size_t, size_t *);
typedef napi_status (*create_int32_fn)(napi_env, int32_t, napi_value *);
typedef napi_status (*create_uint32_fn)(napi_env, uint32_t, napi_value *);
typedef napi_status (*create_string_utf8_fn)(napi_env, const char *, size_t, napi_value *);
typedef napi_status (*create_object_fn)(napi_env, napi_value *);
typedef napi_status (*get_null_fn)(napi_env, napi_value *);
typedef napi_status (*set_named_property_fn)(napi_env, napi_value, const char *, napi_value);
typedef napi_status (*create_function_fn)(napi_env, const char *, size_t, napi_callback, void *, napi_value *);
typedef napi_status (*throw_error_fn)(napi_env, const char *, const char *);
typedef napi_status (*create_error_fn)(napi_env, napi_value, napi_value, napi_value *);
typedef napi_status (*create_promise_fn)(napi_env, napi_deferred *, napi_value *);
typedef napi_status (*settle_deferred_fn)(napi_env, napi_deferred, napi_value);
typedef napi_status (*create_async_work_fn)(napi_env, napi_value, napi_value, napi_async_execute_callback,
                                            napi_async_complete_callback, void *, napi_async_work *);
typedef napi_status (*async_work_fn)(napi_env, napi_async_work);

static struct {
  get_cb_info_fn get_cb_info;
  get_value_int32_fn get_value_int32;
  get_value_string_utf8_fn get_value_string_utf8;
  create_int32_fn create_int32;
  create_uint32_fn create_uint32;
  create_string_utf8_fn create_string_utf8;
  create_object_fn create_object;
  get_null_fn get_null;
  set_named_property_fn set_named_property;
  create_function_fn create_function;
  throw_error_fn throw_error;
  create_error_fn create_error;
  create_promise_fn create_promise;
  settle_deferred_fn resolve_deferred;
  settle_deferred_fn reject_deferred;
  create_async_work_fn create_async_work;
  async_work_fn queue_async_work;
  async_work_fn delete_async_work;
} napi;

static int load_napi(void) {
  HMODULE host = GetModuleHandleW(NULL);
#define LOAD(field, name)                                   \
  napi.field = (void *)GetProcAddress(host, name);          \
  if (!napi.field) return 0;
  LOAD(get_cb_info, "napi_get_cb_info")
  LOAD(get_value_int32, "napi_get_value_int32")
  LOAD(get_value_string_utf8, "napi_get_value_string_utf8")
  LOAD(create_int32, "napi_create_int32")
  LOAD(create_uint32, "napi_create_uint32")
  LOAD(create_string_utf8, "napi_create_string_utf8")
  LOAD(create_object, "napi_create_object")
  LOAD(get_null, "napi_get_null")
  LOAD(set_named_property, "napi_set_named_property")
  LOAD(create_function, "napi_create_function")
  LOAD(throw_error, "napi_throw_error")
  LOAD(create_error, "napi_create_error")
  LOAD(create_promise, "napi_create_promise")
  LOAD(resolve_deferred, "napi_resolve_deferred")
  LOAD(reject_deferred, "napi_reject_deferred")
  LOAD(create_async_work, "napi_create_async_work")
  LOAD(queue_async_work, "napi_queue_async_work")
  LOAD(delete_async_work, "napi_delete_async_work")
#undef LOAD
  return 1;
}

/*
 * Full control for this process's user and LocalSystem; nobody else, not even Administrators;
 * nothing inherited. The user's own SID, not OWNER RIGHTS: an elevated process's objects are
 * owned by Administrators, which would let every administrator in.
 */
static BOOL owner_only_descriptor(PSECURITY_DESCRIPTOR *descriptor) {
  HANDLE token;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return FALSE;
  union {
    TOKEN_USER user;
    char bytes[256];
  } info;
  DWORD size;
  BOOL ok = GetTokenInformation(token, TokenUser, &info, sizeof info, &size);
  CloseHandle(token);
  wchar_t *sid = NULL;
  if (!ok || !ConvertSidToStringSidW(info.user.User.Sid, &sid)) return FALSE;
  wchar_t sddl[256];
  _snwprintf(sddl, 256, L"D:P(A;;GA;;;%ls)(A;;GA;;;SY)", sid);
  sddl[255] = 0;
  LocalFree(sid);
  return ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, descriptor, NULL);
}

/* One waiting pipe: made by createVerifier, consumed by awaitClient. */
#define MAX_VERIFIERS 64
static HANDLE verifiers[MAX_VERIFIERS];

typedef struct {
  int slot;
  DWORD timeout_ms;
  DWORD pid;
  char error[160];
  napi_deferred deferred;
  napi_async_work work;
} wait_job;

static void fail_with(char *out, size_t size, const char *what) {
  snprintf(out, size, "%s failed (Windows error %lu)", what, (unsigned long)GetLastError());
}

/* createVerifier(name) -> slot: a fresh pipe of that (random) name only this user's local processes can open. */
static napi_value create_verifier(napi_env env, napi_callback_info info) {
  int slot = -1;
  for (int i = 0; i < MAX_VERIFIERS; i++)
    if (!verifiers[i]) {
      slot = i;
      break;
    }
  if (slot < 0) {
    napi.throw_error(env, "EVERIFIERS", "too many callers waiting to be named");
    return NULL;
  }
  size_t argc = 1, length = 0;
  napi_value argv[1];
  char name[128];
  if (napi.get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi.get_value_string_utf8(env, argv[0], name, sizeof name, &length) != napi_ok || length >= sizeof name - 1 ||
      strncmp(name, "\\\\.\\pipe\\", 9) != 0) {
    napi.throw_error(env, "EINVAL", "createVerifier(name): a pipe name under \\\\.\\pipe\\");
    return NULL;
  }
  wchar_t wide[128];
  MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, 128);

  SECURITY_ATTRIBUTES attributes = {sizeof attributes, NULL, FALSE};
  if (!owner_only_descriptor(&attributes.lpSecurityDescriptor)) {
    napi.throw_error(env, "ESECURITY", "the verifier pipe's security descriptor could not be built");
    return NULL;
  }
  HANDLE pipe = CreateNamedPipeW(wide, PIPE_ACCESS_INBOUND | FILE_FLAG_FIRST_PIPE_INSTANCE | FILE_FLAG_OVERLAPPED,
                                 PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, 0, 0, 0, &attributes);
  LocalFree(attributes.lpSecurityDescriptor);
  if (pipe == INVALID_HANDLE_VALUE) {
    char message[160];
    fail_with(message, sizeof message, "CreateNamedPipe");
    napi.throw_error(env, "EPIPE", message);
    return NULL;
  }
  verifiers[slot] = pipe;
  napi_value result;
  napi.create_int32(env, slot, &result);
  return result;
}

static void wait_execute(napi_env env, void *data) {
  (void)env;
  wait_job *job = data;
  HANDLE pipe = verifiers[job->slot];
  OVERLAPPED overlapped = {0};
  overlapped.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
  BOOL connected = ConnectNamedPipe(pipe, &overlapped);
  DWORD error = connected ? ERROR_PIPE_CONNECTED : GetLastError();
  if (error == ERROR_IO_PENDING) {
    if (WaitForSingleObject(overlapped.hEvent, job->timeout_ms) == WAIT_OBJECT_0) {
      DWORD ignored;
      error = GetOverlappedResult(pipe, &overlapped, &ignored, FALSE) ? ERROR_PIPE_CONNECTED : GetLastError();
    } else {
      CancelIo(pipe);
      snprintf(job->error, sizeof job->error, "no caller connected within %lu ms", (unsigned long)job->timeout_ms);
    }
  }
  /* ERROR_NO_DATA: the client opened the pipe and closed it before this wait began (the thread
     pool was busy). Its connection happened all the same, and Windows keeps its pid until the
     disconnect below: that is the same proof. */
  if (!job->error[0]) {
    if (error != ERROR_PIPE_CONNECTED && error != ERROR_NO_DATA)
      snprintf(job->error, sizeof job->error, "ConnectNamedPipe failed (Windows error %lu)", (unsigned long)error);
    else if (!GetNamedPipeClientProcessId(pipe, &job->pid))
      fail_with(job->error, sizeof job->error, "GetNamedPipeClientProcessId");
  }
  CloseHandle(overlapped.hEvent);
  DisconnectNamedPipe(pipe);
  CloseHandle(pipe);
  verifiers[job->slot] = NULL;
}

static void wait_complete(napi_env env, napi_status status, void *data) {
  (void)status;
  wait_job *job = data;
  napi_value value;
  if (job->error[0]) {
    napi_value message;
    napi.create_string_utf8(env, job->error, NAPI_AUTO_LENGTH, &message);
    napi.create_error(env, NULL, message, &value);
    napi.reject_deferred(env, job->deferred, value);
  } else {
    napi.create_uint32(env, job->pid, &value);
    napi.resolve_deferred(env, job->deferred, value);
  }
  napi.delete_async_work(env, job->work);
  free(job);
}

/* awaitClient(slot, timeoutMs) -> Promise<pid>: the process that connected to that verifier. */
static napi_value await_client(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t slot, timeout;
  if (napi.get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi.get_value_int32(env, argv[0], &slot) != napi_ok || napi.get_value_int32(env, argv[1], &timeout) != napi_ok ||
      slot < 0 || slot >= MAX_VERIFIERS || !verifiers[slot] || timeout <= 0) {
    napi.throw_error(env, "EINVAL", "awaitClient(slot, timeoutMs): no such verifier");
    return NULL;
  }
  wait_job *job = calloc(1, sizeof *job);
  job->slot = slot;
  job->timeout_ms = (DWORD)timeout;
  napi_value promise, name;
  napi.create_promise(env, &job->deferred, &promise);
  napi.create_string_utf8(env, "kubecred-pipe-caller", NAPI_AUTO_LENGTH, &name);
  napi.create_async_work(env, NULL, name, wait_execute, wait_complete, job, &job->work);
  napi.queue_async_work(env, job->work);
  return promise;
}

/*
 * processInfo(pid) -> { parentPid, startTime, executable } | null: what /proc tells on Linux.
 * startTime is the creation time (100 ns since 1601) as a string: with the pid, it names one
 * process for good, so a parent pid reused since by another program is seen for what it is.
 */
static napi_value process_info(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result, value;
  int32_t pid;
  if (napi.get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi.get_value_int32(env, argv[0], &pid) != napi_ok || pid <= 0) {
    napi.throw_error(env, "EINVAL", "processInfo(pid)");
    return NULL;
  }
  DWORD parent = 0;
  BOOL found = FALSE;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot != INVALID_HANDLE_VALUE) {
    PROCESSENTRY32W entry = {.dwSize = sizeof entry};
    for (BOOL more = Process32FirstW(snapshot, &entry); more; more = Process32NextW(snapshot, &entry))
      if (entry.th32ProcessID == (DWORD)pid) {
        parent = entry.th32ParentProcessID;
        found = TRUE;
        break;
      }
    CloseHandle(snapshot);
  }
  if (!found) {
    napi.get_null(env, &result);
    return result;
  }
  napi.create_object(env, &result);
  if (parent > 0) {
    napi.create_uint32(env, parent, &value);
    napi.set_named_property(env, result, "parentPid", value);
  }
  HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
  if (process) {
    FILETIME created, exited, kernel, user;
    if (GetProcessTimes(process, &created, &exited, &kernel, &user)) {
      char text[24];
      snprintf(text, sizeof text, "%llu",
               ((unsigned long long)created.dwHighDateTime << 32) | (unsigned long long)created.dwLowDateTime);
      napi.create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value);
      napi.set_named_property(env, result, "startTime", value);
    }
    wchar_t image[MAX_PATH * 2];
    DWORD length = sizeof image / sizeof image[0];
    if (QueryFullProcessImageNameW(process, 0, image, &length)) {
      char utf8[MAX_PATH * 6];
      int bytes = WideCharToMultiByte(CP_UTF8, 0, image, (int)length, utf8, sizeof utf8 - 1, NULL, NULL);
      if (bytes > 0) {
        utf8[bytes] = 0;
        napi.create_string_utf8(env, utf8, NAPI_AUTO_LENGTH, &value);
        napi.set_named_property(env, result, "executable", value);
      }
    }
    CloseHandle(process);
  }
  return result;
}

/* The first argument, a pipe name, as Windows takes it (256 wide characters); throws `usage` if it is not one. */
static BOOL pipe_name_argument(napi_env env, napi_callback_info info, wchar_t wide[256], const char *usage) {
  size_t argc = 1, length = 0;
  napi_value argv[1];
  char name[256];
  if (napi.get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi.get_value_string_utf8(env, argv[0], name, sizeof name, &length) != napi_ok || length >= sizeof name - 1 ||
      !MultiByteToWideChar(CP_UTF8, 0, name, -1, wide, 256)) {
    napi.throw_error(env, "EINVAL", usage);
    return FALSE;
  }
  return TRUE;
}

/*
 * restrictPipe(name): the broker's own pipe, which Node creates with the default descriptor
 * (Everyone may read), gets the owner-only one. A handle with WRITE_DAC, as a client, sets it
 * on the pipe, which all its instances share.
 */
static napi_value restrict_pipe(napi_env env, napi_callback_info info) {
  wchar_t wide[256];
  if (!pipe_name_argument(env, info, wide, "restrictPipe(name)")) return NULL;
  PSECURITY_DESCRIPTOR descriptor = NULL;
  PACL dacl = NULL;
  BOOL present = FALSE, defaulted = FALSE;
  char message[160] = "";
  if (!owner_only_descriptor(&descriptor) || !GetSecurityDescriptorDacl(descriptor, &present, &dacl, &defaulted)) {
    fail_with(message, sizeof message, "building the owner-only descriptor");
  } else {
    HANDLE pipe = CreateFileW(wide, WRITE_DAC | READ_CONTROL, 0, NULL, OPEN_EXISTING,
                              SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
    if (pipe == INVALID_HANDLE_VALUE) {
      fail_with(message, sizeof message, "opening the pipe to set its descriptor");
    } else {
      DWORD error = SetSecurityInfo(pipe, SE_KERNEL_OBJECT, DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
                                    NULL, NULL, dacl, NULL);
      if (error != ERROR_SUCCESS) snprintf(message, sizeof message, "SetSecurityInfo failed (Windows error %lu)", (unsigned long)error);
      CloseHandle(pipe);
    }
  }
  if (descriptor) LocalFree(descriptor);
  if (message[0]) {
    napi.throw_error(env, "EPIPESECURITY", message);
    return NULL;
  }
  return NULL;
}

/* pipeSecurity(name) -> the pipe's DACL in SDDL, as Windows (or Wine) keeps it: for the tests. */
static napi_value pipe_security(napi_env env, napi_callback_info info) {
  napi_value result;
  wchar_t wide[256];
  if (!pipe_name_argument(env, info, wide, "pipeSecurity(name)")) return NULL;
  HANDLE pipe = CreateFileW(wide, READ_CONTROL, 0, NULL, OPEN_EXISTING, SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
  if (pipe == INVALID_HANDLE_VALUE) {
    char message[160];
    fail_with(message, sizeof message, "opening the pipe to read its descriptor");
    napi.throw_error(env, "EPIPESECURITY", message);
    return NULL;
  }
  PSECURITY_DESCRIPTOR descriptor = NULL;
  wchar_t *sddl = NULL;
  DWORD error = GetSecurityInfo(pipe, SE_KERNEL_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, NULL, NULL, &descriptor);
  CloseHandle(pipe);
  if (error != ERROR_SUCCESS ||
      !ConvertSecurityDescriptorToStringSecurityDescriptorW(descriptor, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, &sddl, NULL)) {
    if (descriptor) LocalFree(descriptor);
    napi.throw_error(env, "EPIPESECURITY", "the pipe's descriptor could not be read");
    return NULL;
  }
  char utf8[1024];
  int bytes = WideCharToMultiByte(CP_UTF8, 0, sddl, -1, utf8, sizeof utf8, NULL, NULL);
  LocalFree(sddl);
  LocalFree(descriptor);
  napi.create_string_utf8(env, bytes > 0 ? utf8 : "", NAPI_AUTO_LENGTH, &result);
  return result;
}

/* pipeServerPid(name) -> the pid of the process serving that pipe, through a connection of our own. */
static napi_value pipe_server_pid(napi_env env, napi_callback_info info) {
  napi_value result;
  wchar_t wide[256];
  if (!pipe_name_argument(env, info, wide, "pipeServerPid(name)")) return NULL;
  HANDLE pipe = CreateFileW(wide, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                            SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
  if (pipe == INVALID_HANDLE_VALUE && GetLastError() == ERROR_PIPE_BUSY && WaitNamedPipeW(wide, 2000))
    pipe = CreateFileW(wide, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                       SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
  if (pipe == INVALID_HANDLE_VALUE) {
    char message[160];
    fail_with(message, sizeof message, "opening the pipe");
    napi.throw_error(env, GetLastError() == ERROR_FILE_NOT_FOUND ? "ENOENT" : "EPIPESERVER", message);
    return NULL;
  }
  ULONG server = 0;
  BOOL known = GetNamedPipeServerProcessId(pipe, &server);
  CloseHandle(pipe);
  if (!known) {
    napi.throw_error(env, "EPIPESERVER", "GetNamedPipeServerProcessId failed");
    return NULL;
  }
  napi.create_uint32(env, server, &result);
  return result;
}

__declspec(dllexport) int32_t node_api_module_get_api_version_v1(void) { return 8; }

__declspec(dllexport) napi_value napi_register_module_v1(napi_env env, napi_value exports) {
  if (!load_napi()) return NULL;
  napi_value fn;
  napi.create_function(env, "createVerifier", NAPI_AUTO_LENGTH, create_verifier, NULL, &fn);
  napi.set_named_property(env, exports, "createVerifier", fn);
  napi.create_function(env, "awaitClient", NAPI_AUTO_LENGTH, await_client, NULL, &fn);
  napi.set_named_property(env, exports, "awaitClient", fn);
  napi.create_function(env, "processInfo", NAPI_AUTO_LENGTH, process_info, NULL, &fn);
  napi.set_named_property(env, exports, "processInfo", fn);
  napi.create_function(env, "restrictPipe", NAPI_AUTO_LENGTH, restrict_pipe, NULL, &fn);
  napi.set_named_property(env, exports, "restrictPipe", fn);
  napi.create_function(env, "pipeSecurity", NAPI_AUTO_LENGTH, pipe_security, NULL, &fn);
  napi.set_named_property(env, exports, "pipeSecurity", fn);
  napi.create_function(env, "pipeServerPid", NAPI_AUTO_LENGTH, pipe_server_pid, NULL, &fn);
  napi.set_named_property(env, exports, "pipeServerPid", fn);
  return exports;
}
