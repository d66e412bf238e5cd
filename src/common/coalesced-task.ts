/**
 * Runs an async task on demand, never twice at once: a request that arrives while it runs makes it run
 * once more afterwards. The leased poller uses it so that any number of wake-ups (NOTIFY, polls,
 * finished work) turn into one claim loop at a time.
 */
export class CoalescedTask {
  private busy = false;
  private again = false;

  constructor(private readonly task: () => Promise<void>) {}

  trigger(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    void this.loop();
  }

  private async loop(): Promise<void> {
    this.busy = true;
    try {
      do {
        this.again = false;
        await this.task();
      } while (this.again);
    } finally {
      this.busy = false;
    }
  }
}
