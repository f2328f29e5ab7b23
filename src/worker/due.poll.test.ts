import { DueClock, SAFETY_POLL_MS, Sleeper, type DuePoll } from './due.poll.js';

/** A queue's clock on a time the test moves, and the looks it asks for. */
function clockAt(start = 1_000_000) {
  let now = start;
  const looks: number[] = [];
  const clock = new DueClock(new Sleeper(), () => now);
  clock.poll = { soon: () => looks.push(now) } as unknown as DuePoll;
  return {
    clock,
    looks,
    move: (ms: number) => (now += ms),
    get now() {
      return now;
    },
  };
}

describe('DueClock', () => {
  it('wants a claim at a wake, and at a due time once it comes, not before', () => {
    const t = clockAt();
    expect(t.clock.take()).toBe(false);
    t.clock.wake();
    expect(t.clock.take()).toBe(true);
    expect(t.clock.take()).toBe(false);
    t.clock.dueAt(t.now + 5_000);
    expect(t.clock.ready()).toBe(false);
    expect(t.clock.idleFor()).toBe(5_000);
    t.move(4_999);
    expect(t.clock.take()).toBe(false);
    t.move(1);
    expect(t.clock.take()).toBe(true);
    expect(t.clock.idleFor()).toBe(Infinity);
  });

  it('with a gap, claims at once after a quiet spell, then at most once per gap, keeping what is wanted meanwhile', () => {
    let now = 1_000_000;
    const clock = new DueClock(new Sleeper(), () => now, { ms: 50, now: () => now });
    clock.wake();
    expect(clock.take()).toBe(true);
    clock.wake();
    expect([clock.ready(), clock.take(), clock.idleFor()]).toEqual([false, false, 50]);
    now += 30;
    clock.wake();
    expect([clock.take(), clock.idleFor()]).toEqual([false, 20]);
    now += 20;
    expect([clock.ready(), clock.take(), clock.take()]).toEqual([true, true, false]);
    // A due time inside the gap waits for the gap; one past it, for itself.
    clock.dueAt(now + 10);
    expect(clock.idleFor()).toBe(50);
    now += 50;
    expect(clock.take()).toBe(true);
    clock.dueAt(now + 80);
    expect(clock.idleFor()).toBe(80);
  });

  it('keeps the earliest due time it is told of', () => {
    const t = clockAt();
    t.clock.dueAt(t.now + 9_000);
    t.clock.polled(t.now + 3_000);
    t.clock.dueAt(t.now + 6_000);
    expect(t.clock.idleFor()).toBe(3_000);
  });

  it('asks for a look after a claim for a due time leaves nothing due, and not after a claim for a wake', () => {
    const t = clockAt();
    t.clock.wake();
    t.clock.take();
    t.clock.claimed(0, 8);
    expect(t.looks).toEqual([]);
    t.clock.dueAt(t.now + 1_000);
    t.move(1_000);
    t.clock.take();
    t.clock.claimed(3, 8);
    expect(t.looks).toEqual([t.now]);
  });

  it('claims again at once when a claim was full', () => {
    const t = clockAt();
    t.clock.wake();
    t.clock.take();
    t.clock.claimed(8, 8);
    expect(t.clock.take()).toBe(true);
  });

  it('backs off when the looks keep finding work due that its claims do not get', () => {
    const t = clockAt();
    const fruitless = () => {
      t.clock.polled(t.now - 10);
      t.move(Math.max(0, t.clock.idleFor()));
      expect(t.clock.take()).toBe(true);
      t.clock.claimed(0, 8);
      return t.clock;
    };
    fruitless();
    t.clock.polled(t.now - 10);
    expect(t.clock.idleFor()).toBe(1_000);
    fruitless();
    t.clock.polled(t.now - 10);
    expect(t.clock.idleFor()).toBe(2_000);
    for (let i = 0; i < 10; i++) fruitless();
    t.clock.polled(t.now - 10);
    expect(t.clock.idleFor()).toBe(SAFETY_POLL_MS);
    // A claim that gets work ends the back-off.
    t.move(SAFETY_POLL_MS);
    t.clock.take();
    t.clock.claimed(1, 8);
    t.clock.polled(t.now - 10);
    expect(t.clock.ready()).toBe(true);
  });
});
