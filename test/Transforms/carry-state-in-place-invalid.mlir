// RUN: mpt-opt %s -split-input-file -verify-diagnostics --mpt-carry-state-in-place

// Carried results are materialized before the one return of a one-block step.

// expected-error @+1 {{mpt-carry-state-in-place: expected a step with one block (structured control flow only)}}
func.func @branches(%n: tensor<i64> {mpt.state}, %flag: tensor<i1> {mpt.data})
    -> (tensor<i64> {mpt.next = 0 : i64}) attributes {mpt.train_step} {
  %c = tensor.extract %flag[] : tensor<i1>
  cf.cond_br %c, ^keep, ^bump
^keep:
  return %n : tensor<i64>
^bump:
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %n, %one : tensor<i64>
  return %next : tensor<i64>
}
