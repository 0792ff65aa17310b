// RowStore: see docs/ARCHITECTURE.md
