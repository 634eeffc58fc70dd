// Native addons inside the single binary: extracted from embedded assets and loaded from a cache dir. From source: undefined.
export function betterSqliteNativeBinding(): string | undefined {
  return undefined;
}
