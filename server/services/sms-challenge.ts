/**
 * The challenge a visitor answers before an SMS code goes to a new number once a workspace nears its daily
 * cap (docs/reliability.md "SMS sign-in against strangers"): a CAPTCHA or a proof of work, checked by the
 * operator's verifier. The service only asks it; what the visitor is shown is the site's.
 */
export interface SmsChallenge {
  /** True when `answer` (what the visitor's page got from the challenge) is accepted. */
  verify(answer: string, about: { phone: string; address: string; slug: string }): Promise<boolean>;
}

/** How long the verifier may take before the answer counts as not accepted. */
const VERIFY_TIMEOUT_MS = 10_000;

/**
 * A verifier of the `siteverify` kind that Cloudflare Turnstile, hCaptcha and reCAPTCHA share
 * (`--sms-challenge-url`): a form POST of `secret`, `response` and `remoteip`, answered `{ "success": true }`
 * for an accepted answer. Anything else (another answer, an error, no answer in 10 s) does not pass.
 */
export function siteverifyChallenge(url: string, secret: string, log: (line: string) => void): SmsChallenge {
  return {
    async verify(answer, { address }) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          body: new URLSearchParams({ secret, response: answer, remoteip: address.replace(/\/64$/, '') }),
          signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS),
        });
        const body = (await res.json()) as { success?: unknown };
        return res.ok && body.success === true;
      } catch (err) {
        log(`the SMS challenge verifier did not answer: ${err instanceof Error ? err.message : String(err)}`);
        return false;
      }
    },
  };
}
