import ReactMarkdown, { defaultUrlTransform } from 'react-markdown';

/**
 * Markdown from the catalog (descriptions, documentation), rendered safely: raw HTML in it is shown as text, never
 * parsed (react-markdown without rehype-raw builds React elements only, so no `<script>`, event handler or `style`
 * from metadata reaches the page), and links keep only safe schemes (http, https, mailto, relative), opening without
 * giving the target a handle on this page.
 */
export function Markdown({ text }: { readonly text: string | null | undefined }) {
  if (text === null || text === undefined || text.trim() === '') return null;
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml={false}
        urlTransform={safeUrl}
        components={{
          a: ({ href, children }) => (
            <a href={href} rel="noopener noreferrer nofollow" target="_blank">
              {children}
            </a>
          ),
          img: ({ alt }) => <span className="muted">[image{alt ? `: ${alt}` : ''}]</span>,
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

/** Only http(s), mailto and relative URLs survive; `javascript:`, `data:` and the rest become empty. */
export function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return /^(https?:|mailto:|\/|#|\.)/i.test(cleaned) || !/^[a-z][a-z0-9+.-]*:/i.test(cleaned) ? cleaned : '';
}
