/**
 * Who lifted each profile's guard, as every view names them while it is lifted ("guard lifted
 * by kubectl (pid 4242)"). Only the last lift counts; a stale name shows nowhere, since views
 * show it only while the guard is lifted.
 */
export class GuardLifters {
  private readonly lifters = new Map<string, string>();

  lifted(profile: string, by: string): void {
    this.lifters.set(profile, by);
  }

  back(profile: string): void {
    this.lifters.delete(profile);
  }

  of(profile: string): string | undefined {
    return this.lifters.get(profile);
  }
}
