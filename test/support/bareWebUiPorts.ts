import { PromptQueue } from '../../src/main/ui/promptQueue.js';
import type { WebUiPorts } from '../../src/main/webui/webUiPorts.js';

/** A web UI's ports with no profiles and no prompts: for tests of the server, not of the broker. */
export function bareWebUiPorts(): WebUiPorts {
  return {
    profiles: async () => [],
    interactions: () => [],
    onChange: () => () => undefined,
    prompts: new PromptQueue({ timeoutMs: 60_000 }),
  } as unknown as WebUiPorts;
}
