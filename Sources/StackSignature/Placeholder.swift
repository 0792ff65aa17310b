// StackSignature: see docs/ARCHITECTURE.md
