import {
  UI_OPERATIONS,
  uiParamNames,
  type UiOperation,
  type UiParamNames,
  type UiParams,
  type UiRequest,
  type UiResponse,
} from '../../shared/api/uiContract.js';
import type { WebUiState } from '../../shared/api/webUiApi.js';

// The session's operations and the event stream have shapes of their own (HttpConnection);
// every other operation of the contract is a method of Transport, written nowhere but there.
const OWN_SHAPE = ['openSession', 'proveSession', 'endSession', 'events'] as const satisfies readonly UiOperation[];

/** The operations a page calls by name: all of the contract's but the session's and the stream. */
export type PageOperation = Exclude<UiOperation, (typeof OWN_SHAPE)[number]>;

const PAGE_OPERATIONS = (Object.keys(UI_OPERATIONS) as UiOperation[]).filter(
  (operation): operation is PageOperation => !(OWN_SHAPE as readonly UiOperation[]).includes(operation),
);

/** The operation's path parameters in its path's order, then its body when it carries one. */
type Arguments<O extends PageOperation> = [
  ...Strings<UiParamNames<O>>,
  ...([UiRequest<O>] extends [undefined | Empty] ? [] : [body: UiRequest<O>]),
];
type Strings<Names extends readonly string[]> = { [I in keyof Names]: string };
type Empty = Record<string, never>;
/** What the call resolves to: the answer its response schema parsed, nothing for an empty one. */
type Result<O extends PageOperation> = [UiResponse<O>] extends [Empty] ? void : UiResponse<O>;

/**
 * One method per page operation of the contract, named as its entry:
 * `storeSecret(profile, field, { value })` for `POST /api/profiles/:profile/secrets/:field`.
 * Mapped over the table's own keys (Omit), so each method shows its entry's doc comment.
 */
export type UiMethods = {
  readonly [O in keyof Omit<typeof UI_OPERATIONS, (typeof OWN_SHAPE)[number]>]: (
    ...args: Arguments<O>
  ) => Promise<Result<O>>;
};

/**
 * How the UI reaches the broker: HttpTransport, the same in a browser tab and a tray app
 * window. Components only ever see this interface, so tests can hand them a fake.
 */
export interface Transport extends UiMethods {
  /** Calls `listener` with every new state until the returned function is called. */
  subscribe(listener: (state: WebUiState) => void, onError: (error: Error) => void): () => void;
}

/** Sends one operation of the contract and answers what its response schema parsed. */
export interface OperationCaller {
  call<O extends PageOperation>(operation: O, params: UiParams<O>, body: UiRequest<O>): Promise<UiResponse<O>>;
}

/** The methods of UiMethods, each laying its arguments out as its operation's path and body for `caller`. */
export function operationMethods(caller: OperationCaller): UiMethods {
  const methods = {} as { -readonly [O in PageOperation]: UiMethods[O] };
  const add = <O extends PageOperation>(operation: O) => {
    const names: readonly string[] = uiParamNames(operation);
    // A POST whose entry takes `nothing` is called without a body argument and still sends `{}`.
    const bare = UI_OPERATIONS[operation].method === 'POST' ? {} : undefined;
    // Arguments<O> and Result<O> read at compile time the same table this reads at run time.
    methods[operation] = ((...args: unknown[]) =>
      caller.call(
        operation,
        Object.fromEntries(names.map((name, i) => [name, args[i]])) as UiParams<O>,
        (args.length > names.length ? args[names.length] : bare) as UiRequest<O>,
      )) as UiMethods[O];
  };
  PAGE_OPERATIONS.forEach(add);
  return methods;
}

/** A failure the broker explained, shown to the user as message and hint. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}
