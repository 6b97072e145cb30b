/** Gateway methods of the auth profiles (E6): `auth.status` — every profile's state for the settings and chat views. */
import type { ProfileStatus } from '../../../preload/contract.js';
import type { AuthPool } from '../../auth/pool.js';
import { parseParams } from '../params.js';

export function authMethods(pool: AuthPool) {
  return {
    async 'auth.status'(raw: unknown): Promise<ProfileStatus[]> {
      parseParams('auth.status', raw);
      return pool.status();
    },
  };
}
