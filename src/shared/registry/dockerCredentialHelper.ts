import { z } from 'zod';

/**
 * The docker credential helper protocol (`docker-credential-<name> get|store|erase|list`),
 * as docker, podman, skopeo and buildah call it.
 */
export const DOCKER_HELPER_ACTIONS = ['get', 'store', 'erase', 'list'] as const;

/**
 * Clients compare stdout with this exact text to tell "no credentials" (use none) from a
 * failure, so it must not be reworded.
 */
export const CREDENTIALS_NOT_FOUND = 'credentials not found in native keychain';

/** What `store` reads on stdin, and `get` prints. */
export const dockerCredentialsSchema = z.object({
  ServerURL: z.string().trim().min(1, { message: 'ServerURL is empty' }),
  Username: z.string(),
  Secret: z.string().min(1, { message: 'Secret is empty' }),
});
export type DockerCredentials = z.infer<typeof dockerCredentialsSchema>;

/** The broker's answer to `get`: null is "not found". */
export interface DockerGetAnswer {
  readonly credentials: DockerCredentials | null;
}
