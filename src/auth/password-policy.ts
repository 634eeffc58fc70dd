// The password rule for users, as a pure check that returns the one sentence to show, or null when the password is fine.
export const PASSWORD_MIN_LENGTH = 12;
/** Long enough for any passphrase, short enough that hashing it costs nothing unusual. */
export const PASSWORD_MAX_LENGTH = 256;

/** Lengths count characters (code points), as a person counts them, not UTF-16 units. */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `password: must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `password: must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  if (password.trim() === '') return 'password: must not be only spaces';
  if (new Set(password).size < 4) return 'password: must use at least 4 different characters';
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) return 'password: must not be your email address';
  return null;
}
