/** T with its members writable: for a value built member by member (in a fixed order, some only when they apply). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
