import { describe, expect, it, vi } from 'vitest';
import { UserRepository } from './repository';

const pool = { query: vi.fn() };

describe('UserRepository', () => {
  it('reads the users table', () => {
    expect(new UserRepository(pool as any).table()).toBe('users');
  });

  it('hydrates rows', async () => {
    pool.query.mockResolvedValue([{ id: 1, name: 'ann' }]);
    const user = await new UserRepository(pool as any).find(1);
    expect(user?.id).toEqual(1);
  });
});
