/**
 * The API key of the signed-in user, kept in sessionStorage only (gone when the tab closes):
 * never in a URL, a cookie or a log line. Sign out forgets it.
 */
const STORAGE_KEY = "causeway.api_key";

export const session = {
  key(): string | null {
    return sessionStorage.getItem(STORAGE_KEY);
  },
  signIn(key: string): void {
    sessionStorage.setItem(STORAGE_KEY, key);
  },
  signOut(): void {
    sessionStorage.removeItem(STORAGE_KEY);
  },
};
