// Time is a dependency, so tests can fix it and nothing reads the wall clock behind a caller's back.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
