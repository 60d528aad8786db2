import { hashPassword, verifyPassword } from './passwords';

describe('passwords', () => {
  it('given a hashed password, then it verifies, and any other password does not', async () => {
    const credentials = await hashPassword('correct horse');
    expect(credentials.hashedPassword).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/]+=*$/);
    expect(credentials.hashedPassword).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', credentials)).toBe(true);
    expect(await verifyPassword('correct horse ', credentials)).toBe(false);
    expect(await verifyPassword('', credentials)).toBe(false);
  });

  it('given the same password twice, then the salts and hashes differ', async () => {
    const [first, second] = await Promise.all([hashPassword('same'), hashPassword('same')]);
    expect(first.salt).not.toBe(second.salt);
    expect(first.hashedPassword).not.toBe(second.hashedPassword);
  });

  it('given a password in another Unicode normal form, then it verifies', async () => {
    const credentials = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', credentials)).toBe(true);
  });

  it('given credentials in a form it does not know or with parameters nobody chose, then nothing verifies', async () => {
    const { salt, hashedPassword } = await hashPassword('pw');
    const hash = hashedPassword.split('$')[4] ?? '';
    for (const damaged of [
      '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8', // DataHub's SHA-256 form
      `scrypt$32768$8$1`,
      `scrypt$1000$8$1$${hash}`, // N not a power of two
      `scrypt$1073741824$8$1$${hash}`, // a cost meant to exhaust the server
      `scrypt$32768$8$1$${hash.slice(4)}`,
      `bcrypt$32768$8$1$${hash}`,
    ]) {
      expect(await verifyPassword('pw', { salt, hashedPassword: damaged })).toBe(false);
    }
  });
});
