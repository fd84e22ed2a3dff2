import { createContext } from 'react';

/**
 * Whether this page may allow an approval. A page opened with `kubecred ui` (its link came
 * through the socket, which any program of the user can ask) may deny only: the broker refuses
 * its Allow, so it offers none. The tray's windows and pages the broker opened itself may.
 */
export const MayAllow = createContext(true);
