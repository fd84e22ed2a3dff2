/**
 * The command that renews an enrolled profile's certificate on the same key, through the
 * context its request went through: what the terminal and the window both tell the person.
 */
export function renewCommand(profile: string, context: string): string {
  return `kubecred enroll ${profile} --renew --context ${context}`;
}
