// "1 document", "3 documents": counts in the page's sentences.

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
