// StackSymbolize: see docs/ARCHITECTURE.md
