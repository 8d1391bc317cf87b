/**
 * Timers a test fires by hand instead of waiting for the clock (an idle limit's `timer` option): `armed`
 * holds those counting now, `fireAll` fires each of them as if its time had come.
 */
export function handTimers() {
  const armed = new Set<() => void>();
  return {
    armed,
    timer: (fire: () => void) => {
      armed.add(fire);
      return () => void armed.delete(fire);
    },
    fireAll: () => {
      for (const fire of [...armed]) fire();
    },
  };
}
