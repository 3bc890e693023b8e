/**
 * A browser as the hosted pages see it, without a browser: it keeps cookies per name, follows no
 * redirect by itself, and reads the hidden fields of a form. Protocol tests drive sign-in with it;
 * the Playwright test drives a real browser through the same pages.
 */
export class BrowserSession {
  readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (value === '' || /max-age=0/i.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Posts a form (`application/x-www-form-urlencoded`) as a browser submits one. */
  submit(url: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

/** The value of a hidden input of a page. */
export const hiddenField = (page: string, name: string): string | undefined =>
  new RegExp(`<input type="hidden" name="${name}" value="([^"]*)"`).exec(page)?.[1];
