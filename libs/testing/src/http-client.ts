/** A response as tests look at it: status, headers, and the body parsed as JSON when it is JSON. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

/** A small HTTP client for end-to-end tests: JSON in, status and JSON out, no retries, no magic. */
export class TestHttpClient {
  constructor(private readonly baseUrl: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.send('GET', path, undefined, headers);
  }

  /** POSTs `body` serialized as JSON (or as given, when a string). */
  post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return this.send('POST', path, text, { 'Content-Type': 'application/json', ...headers });
  }

  async send(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    headers: Record<string, string>,
  ): Promise<TestResponse> {
    const response = await fetch(`${this.baseUrl}${path}`, { method, body, headers });
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }
}
