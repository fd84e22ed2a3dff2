import type { WebUiState } from '../../shared/api/webUiApi.js';
import type { Transport } from '../api/transport.js';
import type { Route } from '../route.js';
import type { BrokerState } from '../useBrokerState.js';
import type { ProfileWork } from '../useProfileWork.js';

/** What every section of the main window is drawn from, once the broker's first state is in. */
export interface SectionProps extends BrokerState, ProfileWork {
  readonly state: WebUiState;
  readonly route: Route;
  /** The time the badges and time left are drawn at (useNow). */
  readonly now: number;
  readonly transport: Transport;
}
