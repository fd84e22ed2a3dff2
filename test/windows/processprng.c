/*
 * bcryptprimitives.dll for Wine 8.0, which has none: Go 1.24+ and Rust programs (kubecred-shim.exe,
 * kubectl.exe, the keychain binding) call its ProcessPrng for every random byte and do not start
 * without it. Windows 10 and later have it; this is the same contract over BCryptGenRandom.
 * Built by scripts/wine-world.mjs with mingw-w64 into the test prefix only; never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x40000000 ? 0x40000000 : (ULONG)length;
    if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
