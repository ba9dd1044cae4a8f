/** A thread of the password pool (password-pool.ts): one bcrypt comparison per task. */
import bcrypt from 'bcryptjs';

export default function compare({ password, hash }: { password: string; hash: string }): boolean {
  try {
    return bcrypt.compareSync(password, hash);
  } catch {
    // Not a bcrypt hash: no password matches it.
    return false;
  }
}
