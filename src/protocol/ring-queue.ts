// A growable FIFO on a power-of-two ring: O(1) push/shift without Array.prototype.shift's copying.
export class RingQueue<T> {
  private buf: Array<T | undefined>;
  private head = 0;
  private count = 0;

  constructor(initialCapacity = 16) {
    let cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    this.buf = new Array<T | undefined>(cap);
  }

  get size(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.buf.length) this.grow();
    this.buf[(this.head + this.count) & (this.buf.length - 1)] = item;
    this.count++;
  }

  unshift(item: T): void {
    if (this.count === this.buf.length) this.grow();
    this.head = (this.head - 1) & (this.buf.length - 1);
    this.buf[this.head] = item;
    this.count++;
  }

  peek(): T | undefined {
    return this.count === 0 ? undefined : this.buf[this.head];
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.buf[this.head];
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.count--;
    return item;
  }

  clear(): void {
    this.buf = new Array<T | undefined>(Math.min(this.buf.length, 64));
    this.head = 0;
    this.count = 0;
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.count; i++) yield this.buf[(this.head + i) & (this.buf.length - 1)] as T;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.buf.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.buf[(this.head + i) & (this.buf.length - 1)];
    this.buf = next;
    this.head = 0;
  }
}
