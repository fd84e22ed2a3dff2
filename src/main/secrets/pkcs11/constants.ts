// PKCS#11 numbers, as fixed by the standard (pkcs11t.h, v2.40). Kept here rather than read
// from the loaded pkcs11js so that everything above the binding works with a plain fake
// in unit tests; an integration test checks them against pkcs11js.

export const CKU_USER = 1;

/** C_Initialize: the module may lock with the OS's own primitives, so calls can come from worker threads. */
export const CKF_OS_LOCKING_OK = 0x2;
export const CKF_RW_SESSION = 0x2;
export const CKF_SERIAL_SESSION = 0x4;
export const CKF_TOKEN_INITIALIZED = 0x400;
export const CKF_USER_PIN_COUNT_LOW = 0x10000;
export const CKF_USER_PIN_FINAL_TRY = 0x20000;
export const CKF_USER_PIN_LOCKED = 0x40000;

export const CKS_RO_USER_FUNCTIONS = 1;
export const CKS_RW_USER_FUNCTIONS = 3;

export const CKO_DATA = 0;
export const CKO_CERTIFICATE = 1;
export const CKO_PRIVATE_KEY = 3;

export const CKC_X_509 = 0;
export const CKK_RSA = 0;
export const CKK_EC = 3;

export const CKA_CLASS = 0x0;
export const CKA_TOKEN = 0x1;
export const CKA_PRIVATE = 0x2;
export const CKA_LABEL = 0x3;
export const CKA_APPLICATION = 0x10;
export const CKA_VALUE = 0x11;
export const CKA_CERTIFICATE_TYPE = 0x80;
export const CKA_KEY_TYPE = 0x100;
export const CKA_ID = 0x102;
export const CKA_SENSITIVE = 0x103;
export const CKA_MODULUS = 0x120;
export const CKA_PUBLIC_EXPONENT = 0x122;
export const CKA_PRIVATE_EXPONENT = 0x123;
export const CKA_PRIME_1 = 0x124;
export const CKA_PRIME_2 = 0x125;
export const CKA_EXPONENT_1 = 0x126;
export const CKA_EXPONENT_2 = 0x127;
export const CKA_COEFFICIENT = 0x128;
export const CKA_EXTRACTABLE = 0x162;
export const CKA_EC_PARAMS = 0x180;

// Signing with a key that stays on the token (the exec proxy's mTLS).
export const CKM_RSA_PKCS = 0x1;
export const CKM_RSA_PKCS_PSS = 0xd;
export const CKM_ECDSA = 0x1041;
export const CKM_SHA256 = 0x250;
export const CKM_SHA384 = 0x260;
export const CKM_SHA512 = 0x270;
export const CKG_MGF1_SHA256 = 0x2;
export const CKG_MGF1_SHA384 = 0x3;
export const CKG_MGF1_SHA512 = 0x4;

/** Return values Kubecred reacts to, by name, so messages can say which one happened. */
export const CKR = {
  CKR_GENERAL_ERROR: 0x5,
  CKR_SLOT_ID_INVALID: 0x3,
  CKR_FUNCTION_FAILED: 0x6,
  CKR_ATTRIBUTE_SENSITIVE: 0x11,
  CKR_ATTRIBUTE_TYPE_INVALID: 0x12,
  CKR_DEVICE_ERROR: 0x30,
  CKR_DEVICE_MEMORY: 0x31,
  CKR_DEVICE_REMOVED: 0x32,
  CKR_OBJECT_HANDLE_INVALID: 0x82,
  CKR_PIN_INCORRECT: 0xa0,
  CKR_PIN_INVALID: 0xa1,
  CKR_PIN_LEN_RANGE: 0xa2,
  CKR_PIN_EXPIRED: 0xa3,
  CKR_PIN_LOCKED: 0xa4,
  CKR_SESSION_CLOSED: 0xb0,
  CKR_SESSION_HANDLE_INVALID: 0xb3,
  CKR_TOKEN_NOT_PRESENT: 0xe0,
  CKR_TOKEN_NOT_RECOGNIZED: 0xe1,
  CKR_TOKEN_WRITE_PROTECTED: 0xe2,
  CKR_USER_ALREADY_LOGGED_IN: 0x100,
  CKR_USER_NOT_LOGGED_IN: 0x101,
  CKR_USER_PIN_NOT_INITIALIZED: 0x102,
  CKR_CRYPTOKI_NOT_INITIALIZED: 0x190,
  CKR_CRYPTOKI_ALREADY_INITIALIZED: 0x191,
} as const;
