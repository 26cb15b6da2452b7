/** Decimals of a currency's minor unit (ISO 4217 as the runtime's Intl knows it): EUR 2, JPY 0, KWD 3; 2 when unknown. */
export function currencyDecimals(currency: string): number {
  try {
    return new Intl.NumberFormat('en', {style: 'currency', currency}).resolvedOptions().maximumFractionDigits ?? 2
  } catch {
    return 2
  }
}

/**
 * An amount as a plain number with its currency's decimals (`1619.80`), for cells a spreadsheet
 * sums; never fewer digits than the service gave (an amount is shown, not rounded).
 */
export function amountText(amount: number, currency: string | null): string {
  const given = /\.(\d+)$/.exec(String(amount))?.[1]?.length ?? 0
  return amount.toFixed(Math.min(20, Math.max(given, currency === null ? 2 : currencyDecimals(currency))))
}
