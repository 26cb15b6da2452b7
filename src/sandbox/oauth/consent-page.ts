/** The HTML of the consent page and of refused authorization requests. Every value is escaped. */
import type {AccountRecord, AppRecord, PropertyRecord} from '../state.js'

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[char] as string)
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
.why{color:#555;margin:0 0 .5rem 1.5rem}.props{max-height:18rem;overflow:auto}.error{color:#a40000}
button{font-size:1rem;padding:.4rem 1.2rem;margin-right:.5rem}`

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`
}

/** An authorization request that cannot go on: shown to the owner, never redirected. */
export function errorPage(message: string): string {
  return page(
    'Authorization request refused',
    `<h1>This connection request cannot be processed</h1>
<p class="error" id="error">${escapeHtml(message)}</p>
<p>Nothing was shared. Tell the publisher of the App that sent you here.</p>`,
  )
}

export interface ConsentView {
  app: AppRecord
  accounts: AccountRecord[]
  properties: PropertyRecord[]
  requestId: string
  error?: string
}

export function consentPage(view: ConsentView): string {
  const {app} = view
  const permissions = app.permissions
    .map((entry) => `<li><strong>${escapeHtml(entry.permission)}</strong><p class="why">${escapeHtml(entry.why)}</p></li>`)
    .join('\n')
  const accounts = view.accounts
    .map(
      (account, index) =>
        `<label><input type="radio" name="account_id" value="${escapeHtml(account.id)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(account.name)}</label><br>`,
    )
    .join('\n')
  const properties = view.accounts
    .map((account) => {
      const items = view.properties
        .filter((property) => property.account_id === account.id)
        .map(
          (property) =>
            `<label><input type="checkbox" name="property_ids" value="${escapeHtml(property.id)}"> ${escapeHtml(property.name)} (${escapeHtml(property.currency)}, ${escapeHtml(property.timezone)})</label><br>`,
        )
        .join('\n')
      return `<p><em>${escapeHtml(account.name)}</em></p>\n${items}`
    })
    .join('\n')
  return page(
    `Connect ${app.name}`,
    `<h1>${escapeHtml(app.name)} wants to connect to your account</h1>
<p>Published by <strong>${escapeHtml(app.publisher)}</strong> (${escapeHtml(app.contact_email)}).</p>
${view.error ? `<p class="error" id="error">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="/oauth/authorize/decision">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<fieldset><legend>Permissions asked (all or none)</legend><ul>
${permissions}
</ul></fieldset>
<fieldset><legend>Account</legend>
${accounts}
</fieldset>
<fieldset><legend>Properties</legend>
<label><input type="radio" name="property_access" value="all" checked> All Properties of the account, including future ones</label><br>
<label><input type="radio" name="property_access" value="list"> Only these:</label>
<div class="props">
${properties}
</div></fieldset>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  )
}
