/** Where an HTTP call goes: the service (URL host, a discovery name) and the path template. */
export interface HttpTarget {
  targetService: string;
  path: string;
  targetUrl?: string;
  /** False when the target or part of the path is not something the source states. */
  resolved: boolean;
  /** The URL expression as written, when it is not one literal. */
  written?: string;
  /** The Spring profile(s) a placeholder took its value from, when the default profile does not set it. */
  profile?: string;
}

/** `http://billing-service:8080/api?x` → host and path; also `lb://name` and `//name`. */
export function parseUrl(text: string): { host: string; path: string } | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:)?\/\/([^/:?#]+)(?::\d+)?([^?#]*)/i.exec(text.trim());
  return m ? { host: m[1]!, path: m[2] ?? '' } : undefined;
}
