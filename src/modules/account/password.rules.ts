/** The rule for a password a person chooses (sign-up, reset, accepting an invitation), as the pages word it. */
export const PASSWORD_RULE =
  'At least 10 characters, and not a common or obvious password (such as "password123", a run like "1234567890", or your e-mail address).';
const MIN_NEW_PASSWORD = 10;

// The most used passwords of 10+ characters in public breach lists, and the obvious words they are built on.
const COMMON = new Set([
  '1234567890',
  '0123456789',
  '0987654321',
  '1111111111',
  '0000000000',
  '1q2w3e4r5t',
  'qwertyuiop',
  'asdfghjkl;',
  'zaq12wsxcde',
  'password12',
  'password123',
  'password1234',
  'passw0rd123',
  'iloveyou12',
  'qwerty1234',
  'qwerty12345',
  'qwerty123456',
  'abcdefghij',
  'abc1234567',
  'letmein123',
  'welcome123',
  'welcome1234',
  'football123',
  'baseball123',
  'sunshine123',
  'princess123',
  'dragon1234',
  'monkey1234',
  'starwars123',
  'superman123',
  'trustno1234',
  'changeme123',
  'administrator',
  'adminadmin',
  'admin12345',
  'test123456',
  'qazwsxedc123',
  '1qaz2wsx3edc',
  'aa12345678',
  'a123456789',
  'q1w2e3r4t5',
  'iloveyou123',
  'whatever123',
  'computer123',
  'restaurant',
  'restaurant1',
  'restaurant123',
  'feedback123',
  'feedback1234',
]);
const WORDS = ['password', 'passw0rd', 'qwerty', 'letmein', 'welcome', 'iloveyou', 'admin', 'feedback'];

/** Why `password` is refused, or undefined when it passes. `email` and `name`: what it must not merely repeat. */
export function weakPassword(password: string, about: { email?: string; name?: string } = {}): string | undefined {
  if (password.length < MIN_NEW_PASSWORD) return `must be at least ${MIN_NEW_PASSWORD} characters`;
  if (password.length > 1024) return 'must be at most 1024 characters';
  const lower = password.toLowerCase();
  const bare = lower.replace(/[^a-z0-9]/g, '');
  if (COMMON.has(lower) || COMMON.has(bare)) return 'is one of the most common passwords';
  if (new Set(lower).size <= 2) return 'repeats one or two characters';
  if (isRun(lower)) return 'is a run of keys or digits';
  // A common word with only digits or symbols around it ("Password2024!").
  if (WORDS.some((w) => lower.includes(w) && lower.replace(w, '').replace(/[^a-z]/g, '').length < 3)) return 'is a common word with digits or symbols added';
  const local = about.email?.toLowerCase().split('@')[0] ?? '';
  if (about.email && (lower.includes(about.email.toLowerCase()) || (local.length >= 4 && lower.replace(local, '').length < 4)))
    return 'must not be your e-mail address';
  const name = about.name?.toLowerCase().replace(/\s+/g, '') ?? '';
  if (name.length >= 4 && bare.replace(name, '').length < 4) return 'must not be your name';
  return undefined;
}

/** Each character one step from the previous (abcdef, 98765), forward or back. */
function isRun(s: string): boolean {
  const steps = new Set<number>();
  for (let i = 1; i < s.length; i++) steps.add(s.charCodeAt(i) - s.charCodeAt(i - 1));
  return steps.size === 1 && [...steps].every((d) => Math.abs(d) <= 1);
}
