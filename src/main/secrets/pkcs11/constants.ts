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
/** CK_MECHANISM_INFO flags: what a mechanism may be used for on this token. */
export const CKF_SIGN = 0x800;
export const CKF_GENERATE_KEY_PAIR = 0x10000;

export const CKS_RO_USER_FUNCTIONS = 1;
export const CKS_RW_USER_FUNCTIONS = 3;

export const CKO_DATA = 0;
export const CKO_CERTIFICATE = 1;
export const CKO_PUBLIC_KEY = 2;
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
export const CKA_ISSUER = 0x81;
export const CKA_SERIAL_NUMBER = 0x82;
export const CKA_KEY_TYPE = 0x100;
export const CKA_SUBJECT = 0x101;
export const CKA_ID = 0x102;
export const CKA_SENSITIVE = 0x103;
export const CKA_SIGN = 0x108;
export const CKA_VERIFY = 0x10a;
export const CKA_MODULUS = 0x120;
export const CKA_MODULUS_BITS = 0x121;
export const CKA_PUBLIC_EXPONENT = 0x122;
export const CKA_PRIVATE_EXPONENT = 0x123;
export const CKA_PRIME_1 = 0x124;
export const CKA_PRIME_2 = 0x125;
export const CKA_EXPONENT_1 = 0x126;
export const CKA_EXPONENT_2 = 0x127;
export const CKA_COEFFICIENT = 0x128;
export const CKA_EXTRACTABLE = 0x162;
export const CKA_LOCAL = 0x163;
export const CKA_NEVER_EXTRACTABLE = 0x164;
export const CKA_ALWAYS_SENSITIVE = 0x165;
export const CKA_EC_PARAMS = 0x180;
export const CKA_EC_POINT = 0x181;

// Key pairs made on the token (kubecred enroll).
export const CKM_RSA_PKCS_KEY_PAIR_GEN = 0x0;
export const CKM_EC_KEY_PAIR_GEN = 0x1040;

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
  CKR_ATTRIBUTE_VALUE_INVALID: 0x13,
  CKR_DEVICE_ERROR: 0x30,
  CKR_DEVICE_MEMORY: 0x31,
  CKR_DEVICE_REMOVED: 0x32,
  CKR_KEY_SIZE_RANGE: 0x62,
  CKR_MECHANISM_INVALID: 0x70,
  CKR_OBJECT_HANDLE_INVALID: 0x82,
  CKR_PIN_INCORRECT: 0xa0,
  CKR_PIN_INVALID: 0xa1,
  CKR_PIN_LEN_RANGE: 0xa2,
  CKR_PIN_EXPIRED: 0xa3,
  CKR_PIN_LOCKED: 0xa4,
  CKR_SESSION_CLOSED: 0xb0,
  CKR_SESSION_HANDLE_INVALID: 0xb3,
  CKR_SESSION_READ_ONLY: 0xb5,
  CKR_TEMPLATE_INCOMPLETE: 0xd0,
  CKR_TEMPLATE_INCONSISTENT: 0xd1,
  CKR_TOKEN_NOT_PRESENT: 0xe0,
  CKR_TOKEN_NOT_RECOGNIZED: 0xe1,
  CKR_TOKEN_WRITE_PROTECTED: 0xe2,
  CKR_USER_ALREADY_LOGGED_IN: 0x100,
  CKR_USER_NOT_LOGGED_IN: 0x101,
  CKR_USER_PIN_NOT_INITIALIZED: 0x102,
  CKR_DOMAIN_PARAMS_INVALID: 0x130,
  CKR_CRYPTOKI_NOT_INITIALIZED: 0x190,
  CKR_CRYPTOKI_ALREADY_INITIALIZED: 0x191,
} as const;
