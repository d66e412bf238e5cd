import { CoalescedTask } from './coalesced-task';

describe('CoalescedTask', () => {
  it('runs once more after a run during which it was triggered, and never twice at once', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const task = new CoalescedTask(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
      running--;
    });
    task.trigger();
    task.trigger();
    task.trigger();
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(runs).toBe(2);
    expect(maxRunning).toBe(1);
  });
});
