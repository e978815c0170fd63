import type { OpenPurpose, Place } from '../../src/load/destination.js';

/**
 * The place, with every open() it is asked for written down by purpose: each open of a DuckDB
 * file costs an instance and, at its close, a checkpoint, so a run's opens are part of its cost.
 */
export function countingPlace(real: Place, opens: OpenPurpose[]): Place {
  return new Proxy(real, {
    get(target, key, receiver): unknown {
      if (key === 'open')
        return (purpose: OpenPurpose) => {
          opens.push(purpose);
          return target.open(purpose);
        };
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}
