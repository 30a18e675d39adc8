// tp_wide: a stand-in for a third-party Montgomery multiplier whose ports are one bit wider
// than its operands (W + 1 bits: a, b, n and the result r), with an asynchronous active-high
// reset, a start pulse and a done pulse. docs/own-design.md verifies it with a descriptor
// alone: [core] ports zero-extends the loader's N-bit registers to its W + 1 bits.
//
// Radix-2 Montgomery, r = a * b * 2^-W mod n (n odd, a, b < n): W iterations of
// acc = (acc + a_i * b + q_i * n) / 2, q_i the low bit after the first addition, then one
// cycle for the final subtraction (acc < 2n), when done pulses.
module tp_wide #(
    parameter integer W = 64
) (
    input              clk,
    input              reset,
    input              start,
    input      [W:0]   a,
    input      [W:0]   b,
    input      [W:0]   n,
    output reg [W:0]   r,
    output reg         done
);
    reg [W:0]   xa;
    reg [W+1:0] acc;
    reg [15:0]  i;
    reg         running;
    wire [W+2:0] t = {1'b0, acc} + (xa[0] ? {2'b00, b} : {(W+3){1'b0}});
    wire [W+2:0] u = t + (t[0] ? {2'b00, n} : {(W+3){1'b0}});
    wire [W+2:0] d = {1'b0, acc} - {2'b00, n};

    always @(posedge clk or posedge reset) begin
        if (reset) begin
            running <= 1'b0;
            done    <= 1'b0;
            r       <= {(W+1){1'b0}};
            xa      <= {(W+1){1'b0}};
            acc     <= {(W+2){1'b0}};
            i       <= 16'd0;
        end else begin
            done <= 1'b0;
            if (start && !running) begin
                xa      <= a;
                acc     <= {(W+2){1'b0}};
                i       <= 16'd0;
                running <= 1'b1;
            end else if (running) begin
                if (i < W) begin
                    acc <= u[W+2:1];
                    xa  <= xa >> 1;
                    i   <= i + 16'd1;
                end else begin
                    r       <= d[W+2] ? acc[W:0] : d[W:0];
                    done    <= 1'b1;
                    running <= 1'b0;
                end
            end
        end
    end
endmodule
