import { BrokerError } from '../../core/brokerError.js';
import type { Pkcs11, Pkcs11Module } from './binding.js';
import { ckrOf, describeFailure } from './ckr.js';
import { CKF_OS_LOCKING_OK, CKR } from './constants.js';

/**
 * One PKCS#11 module (.so, .dylib, .dll), shared by every configured token that names the
 * same path: a module keeps process-wide state, so it is loaded and C_Initialize'd once.
 * Nothing happens until a token operation asks for it.
 */
export class ModuleHost {
  private library: Pkcs11 | undefined;
  private initialized = false;
  /** Bumped at every C_Initialize and C_Finalize: sessions from another generation are gone. */
  generation = 0;
  /**
   * Whether the module took CKF_OS_LOCKING_OK: then a slow call (a signature waiting for a
   * touch) can run on a worker thread and the broker keeps answering meanwhile.
   */
  threadSafe = false;
  private inFlight = 0;
  private drained: (() => void)[] = [];

  constructor(
    readonly path: string,
    private readonly binding: () => Promise<Pkcs11Module>,
  ) {}

  /** The module, loaded and initialized; `token` names who asked, for the error message. */
  async ready(token: string): Promise<Pkcs11> {
    const binding = await this.binding();
    if (!this.library) {
      const library = new binding.PKCS11();
      try {
        library.load(this.path);
      } catch (error) {
        throw new BrokerError(
          'token-unavailable',
          `token "${token}": the PKCS#11 module ${this.path} could not be loaded (${describeFailure(error)})`,
          `install the token's middleware (OpenSC, the vendor's driver, SoftHSM), or fix tokens[].module for "${token}" in config.yaml`,
        );
      }
      this.library = library;
    }
    if (!this.initialized) this.initialize(this.library, token);
    return this.library;
  }

  /**
   * Runs a call that continues on a worker thread. Until it settles, idle() waits, so no
   * C_Finalize (a restart for a swapped card) and no other operation pulls the module or the
   * session out from under it.
   */
  async offThread<T>(call: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await call();
    } finally {
      if (--this.inFlight === 0) for (const resolve of this.drained.splice(0)) resolve();
    }
  }

  /** Resolves when no off-thread call is running on the module. */
  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.drained.push(resolve));
  }

  /** Whether calls can be made now without loading or initializing anything. */
  get live(): Pkcs11 | undefined {
    return this.initialized ? this.library : undefined;
  }

  /**
   * C_Finalize + C_Initialize: what a reader needs after a card swap, and what SoftHSM
   * needs to see a token directory that was removed or restored (it reads them at
   * C_Initialize). Every session of every token on this module is gone afterwards.
   */
  restart(token: string): Pkcs11 {
    if (!this.library) throw new Error('restart before ready');
    this.finalize();
    this.initialize(this.library, token);
    return this.library;
  }

  /** Drops all sessions and login state of the module; the next ready() initializes again. */
  finalize(): void {
    if (this.library && this.initialized) {
      try {
        this.library.C_Finalize();
      } catch {
        // Already finalized (or the module is wedged): either way we start afresh.
      }
    }
    this.initialized = false;
    this.generation++;
  }

  /** Broker shutdown: finalize and unload the library. */
  close(): void {
    this.finalize();
    try {
      this.library?.close();
    } catch {
      // Unloading is best effort; the process is going away or reloading it anyway.
    }
    this.library = undefined;
  }

  private initialize(library: Pkcs11, token: string): void {
    try {
      library.C_Initialize({ flags: CKF_OS_LOCKING_OK });
      this.threadSafe = true;
    } catch (first) {
      // A module that cannot lock (CKR_CANT_LOCK) is used from the main thread only.
      if (ckrOf(first) === CKR.CKR_CRYPTOKI_ALREADY_INITIALIZED) this.threadSafe = false;
      else this.initializeSingleThreaded(library, token);
    }
    this.initialized = true;
    this.generation++;
  }

  private initializeSingleThreaded(library: Pkcs11, token: string): void {
    this.threadSafe = false;
    try {
      library.C_Initialize();
    } catch (error) {
      // Another user of the same library in this process got there first: share it.
      if (ckrOf(error) !== CKR.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
        throw new BrokerError(
          'token-unavailable',
          `token "${token}": the PKCS#11 module ${this.path} failed to start (${describeFailure(error)})`,
          'reconnect the token or its reader and try again; for SoftHSM, check that directories.tokendir in its softhsm2.conf (SOFTHSM2_CONF) exists',
        );
      }
    }
  }
}
