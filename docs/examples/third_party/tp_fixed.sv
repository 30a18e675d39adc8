// tp_fixed: a stand-in for a third-party Montgomery multiplier without a done output: its
// result q is valid a fixed number of clocks after the enable pulse (W + 1) and held until
// the next one. Synchronous active-low reset. docs/own-design.md verifies it with a
// descriptor alone ([core] handshake = "latency", latency = "n + 1").
//
// Radix-2 Montgomery, q = a * b * 2^-W mod n (n odd, a, b < n): W iterations of
// acc = (acc + a_i * b + q_i * n) / 2, then one cycle for the final subtraction.
module tp_fixed #(
    parameter integer W = 64
) (
    input              clk,
    input              rstn,
    input              en,
    input      [W-1:0] a,
    input      [W-1:0] b,
    input      [W-1:0] n,
    output reg [W-1:0] q
);
    reg [W-1:0] xa;
    reg [W:0]   acc;
    reg [15:0]  i;
    reg         running;
    wire [W+1:0] t = {1'b0, acc} + (xa[0] ? {2'b00, b} : {(W+2){1'b0}});
    wire [W+1:0] u = t + (t[0] ? {2'b00, n} : {(W+2){1'b0}});
    wire [W+1:0] d = {1'b0, acc} - {2'b00, n};

    always @(posedge clk) begin
        if (!rstn) begin
            running <= 1'b0;
            q       <= {W{1'b0}};
            xa      <= {W{1'b0}};
            acc     <= {(W+1){1'b0}};
            i       <= 16'd0;
        end else if (en && !running) begin
            xa      <= a;
            acc     <= {(W+1){1'b0}};
            i       <= 16'd0;
            running <= 1'b1;
        end else if (running) begin
            if (i < W) begin
                acc <= u[W+1:1];
                xa  <= xa >> 1;
                i   <= i + 16'd1;
            end else begin
                q       <= d[W+1] ? acc[W-1:0] : d[W-1:0];
                running <= 1'b0;
            end
        end
    end
endmodule
